"""AWX's own survey rules, followed from its source (github.com/ansible/awx at e21dd0a0, 2024-10-23), so the
tests judge a survey as AWX judges it without an AWX:

- spec_errors: what AWX refuses when a survey spec is saved (``JobTemplateSurveySpec._validate_spec_data``,
  awx/api/views/__init__.py): name, description and a non-empty spec; per question the keys type,
  question_name, variable (strings) and required (a bool), no variable twice, a known type, a default of
  the type's Python type (a string for text, choices and multiselect, an int for integer, an int or float
  for float; '' is always allowed), min and max whole numbers, choices for multiplechoice and multiselect
  with every default among them and one default at most for multiplechoice, ``$encrypted$`` only for
  password questions;
- answer_errors: what AWX refuses of one answer at launch (``SurveyJobTemplateMixin._survey_element_validation``,
  awx/main/models/mixins.py): a required answer missing, a text that is no string or outside min/max
  length, an integer that is no int (``type(x) != int``) or outside min/max, a float that is no int or
  float, a multiselect that is no list or has a value outside the choices, a multiplechoice outside them;
- launch_defaults: the extra vars AWX itself adds for a launch that gives no answers (an API call, a
  schedule): each question's default, but only where that default passes answer_errors
  (``_update_unified_job_kwargs``), so a multiselect's default, stored as one string, is never sent;
- ui_answers: what AWX's launch form sends when the operator keeps every default: the default in the
  question's type, a multiselect's as a list.
"""

SURVEY_TYPE_MAPPING = {"text": str, "textarea": str, "password": str, "multiplechoice": str, "multiselect": str,
                       "integer": int, "float": (float, int)}


def _choices(question):
    choices = question.get("choices")
    if isinstance(choices, str):
        return [choice for choice in choices.splitlines() if choice.strip() != ""]
    return list(choices or [])


def spec_errors(spec):
    """Every reason AWX's API would refuse to save this survey spec (AWX stops at the first; all are listed)."""
    if not isinstance(spec, dict):
        return ["the survey spec is not a JSON object"]
    errors = []
    for field, expected, label in (("name", str, "string"), ("description", str, "string"), ("spec", list, "list")):
        if field not in spec:
            errors.append("Field '%s' is missing from survey spec." % field)
        elif not isinstance(spec[field], expected):
            errors.append("Expected %s for field '%s'." % (label, field))
    if isinstance(spec.get("spec"), list) and len(spec["spec"]) < 1:
        errors.append("'spec' doesn't contain any items.")
    if errors:
        return errors
    variables = set()
    for idx, item in enumerate(spec["spec"]):
        where = "survey question %d" % idx
        if not isinstance(item, dict):
            errors.append("%s is not a json object" % where)
            continue
        missing = [f for f in ("type", "question_name", "variable", "required") if f not in item]
        wrong = [f for f in ("type", "question_name", "variable", "required") if f in item
                 and not isinstance(item[f], bool if f == "required" else str)]
        errors.extend("'%s' missing from %s" % (f, where) for f in missing)
        errors.extend("'%s' in %s has the wrong type" % (f, where) for f in wrong)
        if missing or wrong:
            continue
        if item["variable"] in variables:
            errors.append("'variable' '%s' duplicated in %s" % (item["variable"], where))
        variables.add(item["variable"])
        qtype = item["type"]
        if qtype not in SURVEY_TYPE_MAPPING:
            errors.append("'%s' in %s is not an allowed question type" % (qtype, where))
            continue
        if "default" in item and item["default"] != "" and not isinstance(item["default"], SURVEY_TYPE_MAPPING[qtype]):
            errors.append("Default value %r in %s expected to be %s" % (item["default"], where, qtype))
        for key in ("min", "max"):
            if item.get(key) is not None and not isinstance(item[key], int):
                errors.append("The %s limit in %s expected to be integer" % (key, where))
        if qtype in ("multiselect", "multiplechoice"):
            if "choices" not in item:
                errors.append("%s of type %s must specify choices" % (where, qtype))
            elif "default" in item:
                default = item["default"]
                defaults = ([d for d in default.splitlines() if d.strip() != ""] if isinstance(default, str)
                            else list(default))
                if qtype == "multiplechoice" and len(defaults) > 1:
                    errors.append("%s: Multiple Choice (Single Select) can only have one default value" % where)
                # AWX tests `in` against choices as given: a list, or (substring!) a string.
                if any(d not in item["choices"] for d in defaults):
                    errors.append("%s: Default choice must be answered from the choices listed" % where)
        if isinstance(item.get("default"), str) and item["default"].startswith("$encrypted$") and qtype != "password":
            errors.append("$encrypted$ is a reserved keyword for password question defaults (%s)" % where)
    return errors


def answer_errors(question, data):
    """AWX's refusals of one question's answer in ``data`` (the launch's extra vars)."""
    variable, qtype = question["variable"], question["type"]
    if variable not in data:
        return ["'%s' value missing" % variable] if question["required"] else []
    value = data[variable]
    limit = dict((key, question.get(key)) for key in ("min", "max") if question.get(key) not in ("", None))
    if qtype in ("text", "textarea", "password"):
        if not isinstance(value, str):
            return ["Value %s for '%s' expected to be a string." % (value, variable)]
        errors = []
        if "min" in limit and len(value) < int(limit["min"]):
            errors.append("'%s' value %s is too small (length is %d)" % (variable, value, len(value)))
        if "max" in limit and len(value) > int(limit["max"]):
            errors.append("'%s' value %s is too large" % (variable, value))
        return errors
    if qtype == "integer":
        if type(value) is not int:
            return ["Value %s for '%s' expected to be an integer." % (value, variable)]
        errors = []
        if "min" in limit and value < int(limit["min"]):
            errors.append("'%s' value %s is too small (must be at least %s)." % (variable, value, limit["min"]))
        if "max" in limit and value > int(limit["max"]):
            errors.append("'%s' value %s is too large (must be no more than %s)." % (variable, value, limit["max"]))
        return errors
    if qtype == "float":
        if type(value) not in (float, int):
            return ["Value %s for '%s' expected to be a numeric type." % (value, variable)]
        errors = []
        if "min" in limit and value < float(limit["min"]):
            errors.append("'%s' value %s is too small" % (variable, value))
        if "max" in limit and value > float(limit["max"]):
            errors.append("'%s' value %s is too large" % (variable, value))
        return errors
    if qtype == "multiselect":
        if type(value) is not list:
            return ["'%s' value is expected to be a list." % variable]
        return ["Value %s for '%s' expected to be one of %s." % (v, variable, _choices(question))
                for v in value if v not in _choices(question)]
    if qtype == "multiplechoice" and value not in _choices(question):
        return ["Value %s for '%s' expected to be one of %s." % (value, variable, _choices(question))]
    return []


def launch_errors(spec, data):
    """Every refusal of a launch with these extra vars (``survey_variable_validation``)."""
    return [error for question in spec["spec"] for error in answer_errors(question, data)]


def launch_defaults(spec):
    """The extra vars AWX adds for a launch without answers: each default that passes its own question."""
    found = {}
    for question in spec["spec"]:
        if question.get("default") is not None and not answer_errors(question, {question["variable"]: question["default"]}):
            found[question["variable"]] = question["default"]
    return found


def ui_answers(spec):
    """The answers AWX's launch form sends when every default is kept (questions without one are left out)."""
    answers = {}
    for question in spec["spec"]:
        if "default" not in question:
            continue
        default = question["default"]
        if question["type"] == "multiselect":
            default = [d for d in default.splitlines() if d.strip() != ""] if isinstance(default, str) else default
        answers[question["variable"]] = default
    return answers
