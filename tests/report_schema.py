"""The one schema of report.json (docs/report.schema.json), for the unit and end-to-end tests: every
report the tests make or a playbook writes is validated against it, and benchmark.yml's results
document against its part ($defs/benchmark_results)."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_PATH = os.path.join(ROOT, "docs", "report.schema.json")


def report_schema():
    with open(SCHEMA_PATH) as handle:
        return json.load(handle)


def part(name):
    """The schema of one of report.schema.json's $defs, with the others it refers to."""
    schema = report_schema()
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/%s" % name}


def benchmark_schema():
    return part("benchmark_results")


def schema_errors(document, schema=None):
    """Every way ``document`` (a report.json read back) breaks the schema, as 'path: message' lines."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema or report_schema(),
                                                format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return ["%s: %s" % ("/".join(str(step) for step in error.absolute_path) or "(top)", error.message)
            for error in sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))]


def assert_valid_report(document):
    """Fail with every error at once: a report.json that the one schema does not describe."""
    errors = schema_errors(document)
    assert not errors, "report.json does not follow docs/report.schema.json:\n" + "\n".join(errors[:30])
