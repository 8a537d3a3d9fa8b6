"""benchmark.yml's serve suite: the served model measured through its endpoint, as clients use it.

For each concurrency level, that many clients each send the same number of streamed chat completions one
after another (OpenAI's API: ``stream: true`` with ``stream_options.include_usage``). Per request: the time
to the first token (the first chunk with text), the generated tokens (the usage chunk's completion_tokens,
else the chunks with text) and the generation rate after the first token. Per level: the medians, the 90th
percentile of the time to first token and the tokens all clients generated per second of the level's
wall time (the cluster's throughput).

The API key, if any, comes on stdin (never in argv). Prints one JSON document:
``{"endpoint", "model", "settings", "levels": [{"concurrency", "requests": [...], ...}]}``.
Python 3.9, stdlib only. Usage: serve_bench.py --url URL --model NAME [--concurrency 1,4,8] [--requests 3]
[--max-tokens 128] [--prompt-words 64] [--timeout 300] [--key-on-stdin]
"""
import argparse
import http.client
import json
import math
import statistics
import sys
import threading
import time
import urllib.parse

# Words with no shared prefix between requests' prompts beyond the first: each prompt is a cold one.
WORDS = ("river", "stone", "lantern", "orchard", "copper", "meadow", "harbor", "willow", "ember", "granite",
         "falcon", "velvet", "summit", "thistle", "canyon", "marble")


def prompt(index, words):
    """A prompt of about `words` words, different for every request from its first word on."""
    chosen = [WORDS[(index * 7 + step * 3) % len(WORDS)] for step in range(words)]
    return "Request %d. Continue this list with a story: %s" % (index, " ".join(chosen))


def one_request(url, headers, model, text, max_tokens, timeout):
    """{ok, ttft_s, tokens, seconds, generation_tps, error} of one streamed chat completion."""
    parsed = urllib.parse.urlsplit(url)
    connection_class = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    connection = connection_class(parsed.hostname, parsed.port, timeout=timeout)
    body = {"model": model, "messages": [{"role": "user", "content": text}], "max_tokens": max_tokens,
            "temperature": 0.0, "stream": True, "stream_options": {"include_usage": True}}
    started = time.monotonic()
    first = last = None
    chunks, usage = 0, None
    try:
        connection.request("POST", parsed.path.rstrip("/") + "/v1/chat/completions", body=json.dumps(body).encode(),
                           headers=dict(headers, **{"Content-Type": "application/json"}))
        response = connection.getresponse()
        if response.status != 200:
            words = response.read()[:300].decode("utf-8", "replace")
            return {"ok": False, "error": "HTTP %d: %s" % (response.status, words)}
        for raw in iter(response.readline, b""):
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            event = json.loads(data)
            if event.get("usage"):
                usage = event["usage"]
            for choice in event.get("choices") or []:
                if (choice.get("delta") or {}).get("content"):
                    now = time.monotonic()
                    first = now if first is None else first
                    last = now
                    chunks += 1
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
    finally:
        connection.close()
    ended = time.monotonic()
    if first is None:
        return {"ok": False, "error": "the stream held no token"}
    tokens = int((usage or {}).get("completion_tokens") or chunks)
    after_first = last - first
    return {"ok": True, "ttft_s": round(first - started, 4), "tokens": tokens, "seconds": round(ended - started, 4),
            "generation_tps": round((tokens - 1) / after_first, 3) if tokens > 1 and after_first > 0 else None,
            "error": None}


def median(values):
    return round(statistics.median(values), 4) if values else None


def percentile(values, fraction):
    """The nearest-rank percentile of `values` (None when empty)."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1] if ordered else None


def level(url, headers, model, concurrency, requests, max_tokens, words, timeout, first_index):
    """One concurrency level: `concurrency` clients, `requests` requests each, one after another."""
    results = [None] * (concurrency * requests)

    def client(number):
        for turn in range(requests):
            index = number * requests + turn
            results[index] = one_request(url, headers, model, prompt(first_index + index, words), max_tokens, timeout)

    threads = [threading.Thread(target=client, args=(number,)) for number in range(concurrency)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    answered = [r for r in results if r and r["ok"]]
    rates = [r["generation_tps"] for r in answered if r["generation_tps"] is not None]
    ttfts = [r["ttft_s"] for r in answered]
    return {"concurrency": concurrency, "requests": results, "answered": len(answered), "failed": len(results) -
            len(answered), "wall_s": round(wall, 3), "ttft_s_median": median(ttfts),
            "ttft_s_p90": percentile(ttfts, 0.9), "generation_tps_median": median(rates),
            "throughput_tps": round(sum(r["tokens"] for r in answered) / wall, 3) if wall > 0 else None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--concurrency", default="1,4,8")
    parser.add_argument("--requests", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--prompt-words", type=int, default=64)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--key-on-stdin", action="store_true")
    args = parser.parse_args(argv)
    key = sys.stdin.readline().strip() if args.key_on_stdin else ""
    headers = {"Authorization": "Bearer " + key} if key else {}
    levels = [int(value) for value in args.concurrency.split(",") if value.strip()]
    # Warm-up requests (not measured): the first request after a start compiles and fills caches.
    warmup = [one_request(args.url, headers, args.model, prompt(-1 - n, args.prompt_words), args.max_tokens,
                          args.timeout) for n in range(args.warmup)]
    measured, index = [], 0
    for concurrency in levels:
        measured.append(level(args.url, headers, args.model, concurrency, args.requests, args.max_tokens,
                              args.prompt_words, args.timeout, index))
        index += concurrency * args.requests
        sys.stderr.write("serve_bench: concurrency %d: %d answered, %d failed\n" % (
            concurrency, measured[-1]["answered"], measured[-1]["failed"]))
    print(json.dumps({"endpoint": args.url, "model": args.model,
                      "settings": {"concurrency": levels, "requests": args.requests, "max_tokens": args.max_tokens,
                                   "prompt_words": args.prompt_words, "warmup": args.warmup},
                      "warmup": warmup, "levels": measured}, sort_keys=True))
    return 0 if all(entry["answered"] for entry in measured) else 1


if __name__ == "__main__":
    sys.exit(main())
