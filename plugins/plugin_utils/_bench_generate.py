# -*- coding: utf-8 -*-
# PRIVATE to the collection: the generate suite, behind the benchmark_plan filter and the
# cluster_report action (its benchmark section). Names and behaviour may change without notice. Stdlib only, Python 3.9.
"""mlx-lm's own generation benchmark (`mlx_lm.benchmark`), on one node and across the cluster
(pipelined or tensor parallel): which runs to make for the models asked for, and what their text output says.

`mlx_lm.benchmark` (mlx-lm 0.32) prints, from rank 0 only:
    Running warmup..
    Timing with prompt_tokens=512, generation_tokens=128, batch_size=1.
    Trial 1:  prompt_tps=1437.057, generation_tps=219.426, peak_memory=0.002, total_time=0.059
    ...
    Averages: prompt_tps=1430.536, generation_tps=272.106, peak_memory=0.002
`prompt_tps` is prompt tokens over the time to the first token, `generation_tps` generated tokens
over the time after it, `peak_memory` MLX's peak in GB (10^9 bytes) of the whole process, model
load included; one warm-up run comes before the trials."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

TIMING = re.compile(r"^Timing with prompt_tokens=(\d+), generation_tokens=(\d+), batch_size=(\d+)\.?\s*$")
TRIAL = re.compile(r"^Trial (\d+):\s+(.*)$")
AVERAGES = re.compile(r"^Averages:\s+(.*)$")
FIELD = re.compile(r"(\w+)=([0-9.eE+-]+|nan|inf)")
FIELDS = {"prompt_tps": "prompt_tps", "generation_tps": "generation_tps", "peak_memory": "peak_memory_gb",
          "total_time": "total_time_s"}


def _fields(text):
    return dict((FIELDS[key], float(value)) for key, value in FIELD.findall(text) if key in FIELDS)


def parse_benchmark_output(text):
    """{prompt_tokens, generation_tokens, batch_size, trials: [...], averages} of mlx_lm.benchmark's
    output; a part it did not print is None (or an empty list). Other lines (warnings, mlx.launch's
    own words, another rank's traceback) are ignored."""
    found = {"prompt_tokens": None, "generation_tokens": None, "batch_size": None, "trials": [], "averages": None}
    for line in (text or "").splitlines():
        line = line.strip()
        timing = TIMING.match(line)
        if timing:
            found["prompt_tokens"], found["generation_tokens"], found["batch_size"] = [int(g) for g in timing.groups()]
            continue
        trial = TRIAL.match(line)
        if trial:
            found["trials"].append(dict(_fields(trial.group(2)), trial=int(trial.group(1))))
            continue
        averages = AVERAGES.match(line)
        if averages:
            found["averages"] = _fields(averages.group(1))
    return found


ANSI = re.compile(r"\x1b\[[0-9;]*m")
EXCEPTION = re.compile(r"^[A-Za-z_.]*(Error|Exception)\b.*")
RANK_EXIT = re.compile(r"Node with rank \d+ exited with code -?\d+")


def last_words(text):
    """What a failed run said, short: the last exception line and mlx.launch's word on each rank
    that exited badly, else the last line; without colour codes and repeated socket errors."""
    lines = [ANSI.sub("", line).strip() for line in (text or "").splitlines()]
    lines = [line for line in lines if line]
    exceptions = [line for line in lines if EXCEPTION.match(line)]
    exits = [match.group(0) for line in lines for match in [RANK_EXIT.search(line)] if match]
    words = exceptions[-1:] + exits
    return "; ".join(words) if words else (lines[-1] if lines else "no output")


def model_name(path):
    return os.path.basename(os.path.normpath(path))


def generate_plan(models, configs, hosts, backend, single=True, pipeline=True, tensor=False):
    """(runs, problems). configs: {host: {model path: config.json's content or None}}.

    Each run has a ``mode``: ``single`` (the first node alone), ``pipeline`` (every node, each rank its layers:
    ``--pipeline``) or ``tensor`` (every node, each rank a slice of every layer: mlx_lm.benchmark's default
    across hosts, which needs every layer's files on every node, as deploy_model_mode tensor places them).
    A model must be on every node of the play (a run across the nodes reads its config and tokenizer on each
    rank; the one-node run uses the first node): a node without it is a `bench_model_missing` error, found
    before any suite runs. A run across the nodes needs a backend (`backend` None: the hostfiles offer none);
    a pipelined one at least one layer per node, a tensor-parallel one heads and sizes that divide by the
    node count."""
    runs, problems = [], []
    first = hosts[0] if hosts else None
    for path in models:
        missing = [host for host in hosts if not isinstance((configs.get(host) or {}).get(path), dict)]
        for host in missing:
            problems.append(problem("bench_model_missing", "benchmark_generate_models: %s is not a model directory on "
                                    "%s (no readable config.json)" % (path, host), host=host,
                                    details={"model": path}))
        if missing or first is None:
            continue
        config = configs[first][path]
        layers = _arch(config, "num_hidden_layers")
        about = {"model": path, "name": model_name(path), "model_type": config.get("model_type"), "layers": layers}
        if single:
            runs.append(dict(about, nodes=1, hosts=[first], mode="single", pipeline=False, backend=None))
        for mode in [m for m, asked in (("pipeline", pipeline), ("tensor", tensor)) if asked and len(hosts) > 1]:
            why = _unplannable(config, mode, len(hosts), backend)
            if why:
                problems.append(problem("bench_generate_failed", "%s: no %s run across the nodes, since %s (set "
                                        "benchmark_generate_%s: false to leave it out)" % (path, mode, why, mode),
                                        host=first, details={"model": path, "mode": mode}))
            else:
                runs.append(dict(about, nodes=len(hosts), hosts=list(hosts), mode=mode, pipeline=mode == "pipeline",
                                 backend=backend))
    return runs, problems


def _arch(config, key):
    """A config.json field, at its top or in its text_config (multimodal models)."""
    return config.get(key) or (config.get("text_config") or {}).get(key)


def _unplannable(config, mode, count, backend):
    """Why a run of `mode` across `count` nodes cannot be planned, or None."""
    if backend is None:
        return "no MLX hostfile is there to launch it with (run site.yml)"
    if mode == "pipeline":
        layers = _arch(config, "num_hidden_layers")
        if isinstance(layers, int) and layers < count:
            return "%d layers cannot be pipelined across %d nodes (each rank needs at least one)" % (layers, count)
        return None
    sizes = (("hidden_size", "hidden size"), ("num_attention_heads", "attention heads"),
             ("num_key_value_heads", "KV heads"))
    bad = ["%s %s" % (name, _arch(config, key)) for key, name in sizes
           if isinstance(_arch(config, key), int) and _arch(config, key) % count]
    return ("tensor parallel over %d nodes needs %s to divide by %d" % (count, " and ".join(bad), count)) if bad \
        else None


def _label(run):
    where = "" if run["mode"] == "single" else " (%s, %s)" % (run["mode"], run["backend"])
    return "%s, %d node%s%s" % (run["name"], run["nodes"], "" if run["nodes"] == 1 else "s", where)


def generate_results(runs, outputs, first_host):
    """(results, problems): each planned run with what its output says; a run that printed no
    averages (it failed, or a rank lost its peer) is a `bench_generate_failed` error."""
    results, problems = [], []
    for run, output in zip(runs, outputs):
        parsed = parse_benchmark_output(output.get("stdout"))
        entry = dict(run, label=_label(run), unit="tokens/s", rc=output.get("rc"),
                     prompt_tokens=parsed["prompt_tokens"], generation_tokens=parsed["generation_tokens"],
                     trials=parsed["trials"], ok=parsed["averages"] is not None and output.get("rc") == 0)
        averages = parsed["averages"] or {}
        for key in ("prompt_tps", "generation_tps", "peak_memory_gb"):
            entry[key] = averages.get(key)
        results.append(entry)
        if not entry["ok"]:
            said = last_words("%s\n%s" % (output.get("stdout") or "", output.get("stderr") or ""))
            problems.append(problem("bench_generate_failed", "mlx_lm.benchmark for %s did not finish (rc %s): %s" % (
                entry["label"], output.get("rc"), said[-400:]),
                host=first_host, details={"model": run["model"], "nodes": run["nodes"]}))
    return results, problems


def generate_measurements(results):
    found = []
    for entry in results:
        if not entry["ok"]:
            continue
        subject = "%s %d nodes" % (entry["name"], entry["nodes"])
        for name, key, unit in (("prompt_tps", "prompt_tps", "tokens/s"), ("generation_tps", "generation_tps", "tokens/s"),
                                ("peak_memory", "peak_memory_gb", "GB")):
            found.append({"suite": "generate", "name": name, "subject": subject, "value": entry[key], "unit": unit,
                          "repeats": [trial[key] for trial in entry["trials"] if key in trial]})
    return found
