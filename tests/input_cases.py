"""Bad-input cases generated from the roles' argument specs, shared by the unit test of the validator
and the end-to-end test of site.yml's first step: a new role or option is covered by both."""


def misspelt(choice):
    """'present' -> 'presnet': two inner letters swapped, the typo people make."""
    text = str(choice)
    if len(text) < 3:
        return text + "x"
    middle = len(text) // 2
    swapped = text[:middle - 1] + text[middle] + text[middle - 1] + text[middle + 1:]
    return swapped if swapped != text else text + "x"


# A value no coercion turns into the type, per argument-spec type.
WRONG = {"int": "twelve", "float": "fast", "bool": "maybe", "list": {"not": "a list"}, "dict": "not a mapping",
         "str": {"not": "a string"}, "path": ["not", "a", "path"]}
WRONG_ELEMENT = {"int": "x", "float": "x", "bool": "maybe", "dict": "not a mapping", "str": {"a": 1}, "path": {"a": 1}}


def generated_cases(specs):
    """(role, variable, bad value, what the message must hold) for every option of every role."""
    cases = []
    seen = set()
    for role in sorted(specs):
        for options in specs[role].values():
            for name, spec in sorted(options.items()):
                if (role, name) in seen:
                    continue
                seen.add((role, name))
                spec = spec or {}
                wanted = spec.get("type", "str")
                if spec.get("choices"):
                    typo = misspelt(spec["choices"][0])
                    bad = [typo] if wanted == "list" else typo
                    cases.append((role, name, bad, "choices", str(spec["choices"][0])))
                if wanted in WRONG:
                    cases.append((role, name, WRONG[wanted], "type", None))
                if wanted == "list" and spec.get("elements") in WRONG_ELEMENT:
                    cases.append((role, name, [WRONG_ELEMENT[spec["elements"]]], "element", None))
                for sub, subspec in sorted((spec.get("options") or {}).items()):
                    if (subspec or {}).get("choices"):
                        nested = dict((k, "https://pdu.example/cycle") for k, v in spec["options"].items()
                                      if (v or {}).get("required"))
                        nested[sub] = misspelt(subspec["choices"][0])
                        value = [nested] if wanted == "list" else nested
                        cases.append((role, name, value, "suboption %s" % sub, str(subspec["choices"][0])))
    return cases


def one_case_per_role(specs):
    """The first generated case of every role with options (choices first, as the generator lists them)."""
    chosen = {}
    for case in generated_cases(specs):
        chosen.setdefault(case[0], case)
    return [chosen[role] for role in sorted(chosen)]
