"""The documentation's commands and names, checked against the tree (issue 35: docs that run as written).

The docs are README.md, lab/README.md, docs/*.md (problems.md is generated) and every role's README.md.
Their shell blocks (```sh, bash, shell or console) hold the commands an owner copies; a block whose
fence is preceded by the line `<!-- runnable -->` is also run against the lab by the end-to-end test
tests/e2e/serve/test_docs_runnable.py (`inventories/mine` becomes the lab's inventory there, and a
prompt for the become password is left out: the lab's inventory holds it). `findings(root)` checks
everything else without a lab, as sentences naming the file and line; [] when the docs agree with
the tree at root:

- every command of a shell block, and every `ansible ...` or `ansible-playbook ...` in backticks in the prose:
  `ansible-playbook` names a playbook that exists, an inventory (`-i`:
  ansible.cfg's default inventory is the lab, so a copied command must say which cluster), only
  variables of an argument spec in `-e`, tags some task of the collection has, and the become password
  (`--ask-become-pass`, `-K` or a vault) when the playbook's roles use become; `ansible` (ad hoc) the
  same, a module that exists and only its options in `-a`; `make` a target of the Makefile;
  `lab/maclab` a verb and fault it has; a path under the repository that exists; the rest `bash -n`;
- a block that is not labelled as shell but holds such a command line: label it;
- every variable a YAML block of the docs sets with a prefix of the collection (`serve_port: 8080`)
  is in an argument spec; every name in backticks with such a prefix is in an argument spec or is a
  word of the code (a fact, problem code, tag, file, check name), so a rename in the code alone fails;
- every repository path in backticks and every relative link exists;
- the example commands in the header comments of the collection's playbooks are checked as the blocks are;
- each `ansible-playbook` command line goes through its playbook's own input check (its first task,
  macops.cluster.validate_inputs: the roles' argument specs and input rules, the collection's validator run here in
  this process), with the roles' defaults, the example inventory's settings (inventories/example/group_vars) and
  the command's `-e` values; `-e @vault.yml` brings the documented vault's variables (the YAML block of the docs that
  starts `# vault.yml`) and needs a vault password option (`--ask-vault-pass`, `-J`, `--vault-password-file`,
  `--vault-id`): a command shown that its input check would refuse is a finding, with the refusal.
"""
import fnmatch
import glob
import os
import re
import shlex
import subprocess

import yaml

SHELL_LANGS = ("sh", "bash", "shell", "console")
RUNNABLE = "<!-- runnable -->"
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.S | re.M)
COMMAND_START = re.compile(r"^\s*(ansible-playbook|ansible|make|lab/maclab)\s")
# Top-level directories of the repository: a backticked path starting with one of them must exist.
REPO_DIRS = ("roles", "docs", "plugins", "tests", "lab", "scripts", "benchmarks", "inventories", "playbooks",
             "requirements", "meta", "molecule", "changelogs", ".ci")
# Where code lives (what a documented name must be a word of, when it is not a variable).
CODE_GLOBS = ("roles/**/*.yml", "roles/**/*.py", "roles/**/*.j2", "playbooks/*.yml", "plugins/**/*.py",
              "lab/**/*.py", "lab/maclab", "scripts/*", "Makefile", "meta/*", "*.yml", "docs/*.json",
              "docs/awx/**/*.yml", "benchmarks/*")
# Options of ansible-playbook and ansible that supply the become password, or a vault that holds it
# (inventories/example's group_vars show ansible_become_password from a vault).
BECOME_PASSWORD = ("--ask-become-pass", "-K", "--ask-vault-pass", "--ask-vault-password", "--vault-password-file",
                   "--vault-id", "-J")
ANSIBLE_OPTIONS_WITH_VALUE = ("-i", "--inventory", "-e", "--extra-vars", "-t", "--tags", "--skip-tags", "-l",
                              "--limit", "-m", "--module-name", "-a", "--args", "-f", "--forks", "-u", "--user",
                              "--vault-id", "--vault-password-file", "-c", "--connection", "-T", "--timeout",
                              "-M", "--module-path", "--start-at-task", "-o", "--tree")


def doc_files(root):
    """The documentation files, relative to root."""
    found = ["README.md", "lab/README.md"]
    found += sorted(os.path.relpath(path, root) for path in glob.glob(os.path.join(root, "docs", "*.md")))
    found += sorted(os.path.relpath(path, root) for path in glob.glob(os.path.join(root, "roles", "*", "README.md")))
    return [name for name in found if name != os.path.join("docs", "problems.md")
            and os.path.exists(os.path.join(root, name))]


def blocks(text):
    """[(line of the fence, lang, body, runnable)] of a Markdown text."""
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        found.append((text.count("\n", 0, match.start()) + 1, match.group("lang"), match.group("body"),
                      before == RUNNABLE))
    return found


def commands(body):
    """[(line offset in the block, argv)] of a shell block: continuations joined, comments dropped."""
    found = []
    joined, start = "", None
    for offset, line in enumerate(body.splitlines(), 1):
        if start is None:
            start = offset
        if line.rstrip().endswith("\\"):
            joined += line.rstrip()[:-1] + " "
            continue
        joined += line
        try:
            argv = shlex.split(joined, comments=True)
        except ValueError:
            argv = [joined]
        if argv:
            found.append((start, argv))
        joined, start = "", None
    return found


def load_yaml(path):
    with open(path) as handle:
        return yaml.safe_load(handle)


def walk(node):
    """Every dict in a YAML tree."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            for found in walk(value):
                yield found
    elif isinstance(node, list):
        for value in node:
            for found in walk(value):
                yield found


class Tree:
    """What the documentation may name, read once from the tree at root."""

    def __init__(self, root):
        self.root = root
        self.roles = sorted(name for name in os.listdir(os.path.join(root, "roles"))
                            if os.path.isdir(os.path.join(root, "roles", name)))
        self.prefix = re.compile(r"\b((?:%s)_[a-z0-9_]+)\b" % "|".join(sorted(self.roles + ["macops"], key=len,
                                                                              reverse=True)))
        self.variables = set()
        for path in glob.glob(os.path.join(root, "roles", "*", "meta", "argument_specs.yml")):
            for entry in ((load_yaml(path) or {}).get("argument_specs") or {}).values():
                self.variables.update((entry or {}).get("options") or {})
        # What the roles' defaults set: a name the docs give that is one must be in an argument spec too.
        self.defaults = set()
        for path in glob.glob(os.path.join(root, "roles", "*", "defaults", "main.yml")):
            self.defaults.update(load_yaml(path) or {})
        self.tags, self.facts = set(), set()
        for path in glob.glob(os.path.join(root, "roles", "*", "tasks", "*.yml")) + \
                glob.glob(os.path.join(root, "playbooks", "*.yml")):
            for node in walk(load_yaml(path)):
                tags = node.get("tags")
                self.tags.update([tags] if isinstance(tags, str) else tags if isinstance(tags, list) else [])
                # What the roles publish (set_fact, register): a YAML block of the docs may show its shape.
                self.facts.update(node.get("ansible.builtin.set_fact") or {})
                if isinstance(node.get("register"), str):
                    self.facts.add(node["register"])
        words = set()
        for pattern in CODE_GLOBS:
            for path in glob.glob(os.path.join(root, pattern), recursive=True):
                if os.path.isfile(path):
                    with open(path, errors="replace") as handle:
                        words.update(re.findall(r"[A-Za-z0-9_]+", handle.read()))
        # and the names of the tree's files and directories (a fixture, a test module)
        for directory, dirs, files in os.walk(root):
            dirs[:] = [name for name in dirs if not name.startswith(".") and name not in ("artifacts", "collections")]
            words.update(os.path.splitext(name)[0].lstrip("_") for name in dirs + files)
        self.words = words
        with open(os.path.join(root, "Makefile")) as handle:
            self.make_targets = set(re.findall(r"^([a-z][\w-]*):", handle.read(), re.M))
        self.modules = set(name[:-3] for name in os.listdir(os.path.join(root, "plugins", "modules"))
                           if name.endswith(".py") and not name.startswith("_"))
        self._maclab = None
        # The paths git ignores at the root (.gitignore): output a run writes, not in a clean clone.
        self.ignored = []
        if os.path.exists(os.path.join(root, ".gitignore")):
            for line in open(os.path.join(root, ".gitignore")).read().splitlines():
                if line.strip() and not line.startswith("#"):
                    self.ignored.append(line.strip().strip("/"))
        self._become = {}
        self._vault, self._example, self._specs = None, None, None

    def module_options(self, name):
        """The options a module of the collection documents."""
        with open(os.path.join(self.root, "plugins", "modules", name + ".py")) as handle:
            text = handle.read()
        documentation = re.search(r'DOCUMENTATION = r?"""(.*?)"""', text, re.S) or \
            re.search(r"DOCUMENTATION = r?'''(.*?)'''", text, re.S)
        options = (yaml.safe_load(documentation.group(1)) or {}).get("options") or {}
        names = set(options)
        for option in options.values():
            names.update((option or {}).get("aliases") or [])
        return names

    def maclab(self):
        """(verbs, faults) of lab/maclab, from its own help."""
        if self._maclab is None:
            maclab = os.path.join(self.root, "lab", "maclab")
            verbs = re.search(r"\{([\w,-]+)\}", subprocess.run([maclab, "--help"], stdout=subprocess.PIPE,
                                                              universal_newlines=True).stdout)
            faults = re.search(r"\{([\w,-]+)\}", subprocess.run([maclab, "fault", "--help"], stdout=subprocess.PIPE,
                                                               universal_newlines=True).stdout)
            self._maclab = (set(verbs.group(1).split(",")) if verbs else set(),
                            set(faults.group(1).split(",")) if faults else set())
        return self._maclab

    def playbook_path(self, name):
        """The file a documented playbook argument names, or None."""
        if name.startswith("macops.cluster."):
            name = os.path.join("playbooks", name.split(".", 2)[2] + ".yml")
        path = os.path.join(self.root, name)
        return path if name.endswith((".yml", ".yaml")) and os.path.isfile(path) else None

    @property
    def vault(self):
        """The documented vault's variables: the first YAML block of the docs that starts `# vault.yml`."""
        if self._vault is None:
            self._vault = {}
            for name in doc_files(self.root):
                with open(os.path.join(self.root, name)) as handle:
                    for _line, lang, body, _runnable in blocks(handle.read()):
                        if lang in ("yaml", "yml") and body.lstrip().startswith("# vault.yml") and not self._vault:
                            self._vault = yaml.safe_load(body) or {}
        return self._vault

    def input_refusals(self, shim, values):
        """The refusals of the playbook's own input check (its first task's roles) for these `-e` values, over the
        roles' plain defaults and the example inventory's settings: [] when it would pass, or when the playbook's
        first task is not the input check (nothing to ask)."""
        surveys = _awx_surveys(self.root)
        try:
            check = surveys.first_check(os.path.basename(shim))
        except (SystemExit, KeyError, IndexError, TypeError, OSError):
            return []
        given = dict(self.example_settings)
        given.update(values)
        problems = surveys.refusals(self.specs, check, given, macs=self.example_hosts)
        return ["%s (%s)" % (p["message"], p["code"]) for p in problems if p["severity"] == "error"]

    @property
    def example_settings(self):
        """The plain values the example inventory's group_vars set (what `inventories/mine` starts as)."""
        if self._example is None:
            self._example = {}
            for path in sorted(glob.glob(os.path.join(self.root, "inventories", "example", "group_vars", "*", "*.yml"))):
                for name, value in (load_yaml(path) or {}).items():
                    if "{{" not in str(value):
                        self._example[name] = value
        return self._example

    @property
    def example_hosts(self):
        """The example inventory's Macs (the names the docs' commands use)."""
        hosts = ((load_yaml(os.path.join(self.root, "inventories", "example", "hosts.yml")) or {}).get("macs") or {})
        return sorted(hosts.get("hosts") or {}) or None

    @property
    def specs(self):
        if self._specs is None:
            self._specs = _awx_surveys(self.root).load_specs()
        return self._specs

    def uses_become(self, playbook):
        """Whether a playbook, the playbooks it imports or the roles they run use become."""
        if playbook not in self._become:
            self._become[playbook] = False
            text = open(playbook).read()
            found = "become: true" in text
            for imported in re.findall(r"import_playbook:\s*(\S+)", text):
                imported = imported.strip("\"'")
                path = os.path.join(os.path.dirname(playbook), imported)
                path = path if os.path.isfile(path) else self.playbook_path(imported)
                found = found or (path is not None and self.uses_become(path))
            for role in set(re.findall(r"macops\.cluster\.([a-z_]+)", text)) & set(self.roles):
                for task_file in glob.glob(os.path.join(self.root, "roles", role, "tasks", "*.yml")):
                    found = found or "become: true" in open(task_file).read()
            self._become[playbook] = found
        return self._become[playbook]


VAULT_PASSWORD = ("--ask-vault-pass", "--ask-vault-password", "-J", "--vault-password-file", "--vault-id")


def _awx_surveys(root):
    """scripts/awx_surveys.py: the playbook's first check and the collection's validator, as the surveys use them."""
    if "awx_surveys" not in _LOADED:
        import importlib.util
        spec = importlib.util.spec_from_file_location("awx_surveys", os.path.join(root, "scripts", "awx_surveys.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _LOADED["awx_surveys"] = module
    return _LOADED["awx_surveys"]


_LOADED = {}


def extra_values(value, vault):
    """{variable: value} an `-e` value sets (@vault.yml: the documented vault's variables; another @file: none)."""
    if value.startswith("@"):
        return dict(vault) if os.path.basename(value[1:]) == "vault.yml" else {}
    stripped = value.strip()
    if stripped.startswith("{"):
        try:
            data = yaml.safe_load(stripped)
        except yaml.YAMLError:
            return {}
        return data if isinstance(data, dict) else {}
    return dict(pair.split("=", 1) for pair in shlex.split(value) if "=" in pair)


def extra_vars(value):
    """The variable names an `-e` value sets ([] for @file)."""
    if value.startswith("@"):
        return []
    stripped = value.strip()
    if stripped.startswith("{"):
        try:
            data = yaml.safe_load(stripped)
        except yaml.YAMLError:
            return [stripped]
        return list(data) if isinstance(data, dict) else [stripped]
    return [pair.split("=", 1)[0] for pair in shlex.split(value) if "=" in pair]


def options(argv):
    """{option: [values]} and the positional arguments of an ansible or ansible-playbook argv."""
    found, positional, index = {}, [], 1
    while index < len(argv):
        word = argv[index]
        if word.startswith("-") and "=" in word and word.startswith("--"):
            name, value = word.split("=", 1)
            found.setdefault(name, []).append(value)
        elif word in ANSIBLE_OPTIONS_WITH_VALUE and index + 1 < len(argv):
            found.setdefault(word, []).append(argv[index + 1])
            index += 1
        elif word.startswith("-"):
            found.setdefault(word, []).append(None)
        else:
            positional.append(word)
        index += 1
    return found, positional


def check_ansible(tree, argv, where, lab_doc=False):
    """The findings of one ansible or ansible-playbook command line (lab_doc: a command of the lab's own
    documentation, meant for the lab's inventory, which ansible.cfg names)."""
    found = []
    shown_refused = argv[-2:] == ["#", "refused"]
    argv = argv[:-2] if shown_refused else argv
    opts, positional = options(argv)
    playbook = None
    if argv[0] == "ansible-playbook":
        names = [word for word in positional if word.endswith((".yml", ".yaml")) or word.startswith("macops.cluster.")]
        if not names:
            return ["%s: `ansible-playbook` names no playbook" % where]
        playbook = tree.playbook_path(names[0])
        if playbook is None:
            return ["%s: playbook %s does not exist" % (where, names[0])]
    if "-i" not in opts and "--inventory" not in opts and not lab_doc:
        found.append("%s: %s without -i: ansible.cfg's default inventory is the lab, so the copied command would "
                     "not reach the owner's cluster (use -i inventories/mine)" % (where, argv[0]))
    for value in opts.get("-e", []) + opts.get("--extra-vars", []):
        for name in extra_vars(value or ""):
            if not name.startswith("ansible_") and name not in tree.variables:
                found.append("%s: -e %s: no role's argument spec has the variable %s" % (where, value, name))
    for value in opts.get("--tags", []) + opts.get("-t", []) + opts.get("--skip-tags", []):
        for tag in (value or "").split(","):
            if tag not in tree.tags:
                found.append("%s: no task has the tag %s" % (where, tag))
    vaults = [value for value in opts.get("-e", []) + opts.get("--extra-vars", [])
              if (value or "").startswith("@") and os.path.basename(value[1:]) == "vault.yml"]
    if vaults and not any(option in opts for option in VAULT_PASSWORD):
        found.append("%s: -e %s without a vault password option (--ask-vault-pass, -J or --vault-password-file): "
                     "ansible-playbook cannot read the encrypted file" % (where, vaults[0]))
    # `...` stands for the options of the line before: nothing to check alone. A command shown to be refused says so
    # (`# refused` after it) and must be.
    if playbook is not None and "..." not in argv:
        values = {}
        for value in opts.get("-e", []) + opts.get("--extra-vars", []):
            values.update(extra_values(value or "", tree.vault))
        refusals = tree.input_refusals(names[0], values)
        if shown_refused:
            found += [] if refusals else ["%s: shown as refused, but its input check passes it" % where]
        else:
            found += ["%s: its input check refuses it: %s" % (where, refusal) for refusal in refusals]
    become = playbook is not None and tree.uses_become(playbook) or "-b" in opts or "--become" in opts
    if become and not any(option in opts for option in BECOME_PASSWORD):
        found.append("%s: %s uses become but the command passes no become password (--ask-become-pass, or a vault "
                     "holding ansible_become_password with --ask-vault-pass)" % (where, names[0] if playbook else "-b"))
    if argv[0] == "ansible":
        for module in opts.get("-m", []) + opts.get("--module-name", []):
            if module.startswith("macops.cluster."):
                name = module.split(".", 2)[2]
                if name not in tree.modules:
                    found.append("%s: module %s does not exist" % (where, module))
                    continue
                known = tree.module_options(name)
                for value in opts.get("-a", []) + opts.get("--args", []):
                    for key in [pair.split("=", 1)[0] for pair in shlex.split(value or "") if "=" in pair]:
                        if key not in known:
                            found.append("%s: %s has no option %s" % (where, module, key))
    return found


def exists(tree, path, doc):
    """Whether a path a document names exists: from the root, beside the document, or in a role (a role's
    README and the docs say `meta/argument_specs.yml` of each role)."""
    path = path.split("::", 1)[0].rstrip(".,:;)")
    if path.startswith(("inventories/lab/", "inventories/mine")):
        return True  # written by lab/maclab up, and the owner's copy of inventories/example
    if any(fnmatch.fnmatch(path.rstrip("/"), pattern) or fnmatch.fnmatch(path, pattern + "/*")
           for pattern in tree.ignored):
        return True  # what a run writes (.gitignore): a clean clone has none of it yet
    candidates = [os.path.join(tree.root, path), os.path.join(tree.root, os.path.dirname(doc), path)]
    candidates += glob.glob(os.path.join(tree.root, "roles", "*", path))
    return any(os.path.exists(candidate) for candidate in candidates)


def check_command(tree, argv, where, doc):
    """The findings of one command line of a shell block."""
    if argv[0] == "sudo" and len(argv) > 1:
        argv = argv[1:]
    program = argv[0]
    if program in ("ansible", "ansible-playbook"):
        return check_ansible(tree, argv, where, lab_doc=doc == os.path.join("lab", "README.md"))
    if program == "make":
        targets = [word for word in argv[1:] if not word.startswith("-") and "=" not in word]
        return ["%s: make has no target %s" % (where, target) for target in targets if target not in tree.make_targets]
    if program == "lab/maclab":
        verbs, faults = tree.maclab()
        words = [word for word in argv[1:] if not word.startswith("-")]
        if not words:
            return []
        if words[0] not in verbs:
            return ["%s: lab/maclab has no verb %s" % (where, words[0])]
        if words[0] == "fault" and len(words) > 1 and words[1] not in faults:
            return ["%s: lab/maclab fault has no fault %s" % (where, words[1])]
        return []
    found = []
    for word in argv:
        path = word.split("=", 1)[-1]
        if path.startswith(tuple(d + "/" for d in REPO_DIRS)) and not re.search(r"[<>*{]", path) and \
                not exists(tree, path, doc):
            found.append("%s: %s does not exist" % (where, path))
    return found


def check_doc(tree, name):
    """Every finding of one documentation file."""
    with open(os.path.join(tree.root, name)) as handle:
        text = handle.read()
    found = []
    for line, lang, body, _runnable in blocks(text):
        where = "%s:%d" % (name, line)
        if lang in SHELL_LANGS:
            # <placeholders> (<peer TB address>) stand for one word
            proc = subprocess.run(["bash", "-n"], input=re.sub(r"<[^<>\n]+>", "WORD", body), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  universal_newlines=True)
            if proc.returncode:
                found.append("%s: bash -n: %s" % (where, proc.stdout.strip()))
            for offset, argv in commands(body):
                found += check_command(tree, argv, "%s:%d" % (name, line + offset), name)
        elif lang in ("yaml", "yml"):
            try:
                data = yaml.safe_load(body)
            except yaml.YAMLError:
                data = None
            for key in (data if isinstance(data, dict) else {}):
                if tree.prefix.fullmatch(str(key)) and key not in tree.variables and key not in tree.facts:
                    found.append("%s: the YAML sets %s, which no role's argument spec has (nor is it a fact a "
                                 "role publishes)" % (where, key))
        elif any(COMMAND_START.match(line_text) for line_text in body.splitlines()):
            found.append("%s: a block of commands without a shell label: start it with ```sh so it is checked" % where)
    prose = FENCE.sub(lambda match: "\n" * match.group(0).count("\n"), text)
    for match in re.finditer(r"`([^`\n]+)`", prose):
        where = "%s:%d" % (name, prose.count("\n", 0, match.start()) + 1)
        # A command in the prose (`ansible macs -m ...`) is checked like one in a block.
        if re.match(r"(sudo )?(ansible|ansible-playbook) ", match.group(1)):
            try:
                found += check_command(tree, shlex.split(match.group(1)), where, name)
            except ValueError:
                found.append("%s: the command %s does not parse" % (where, match.group(1)))
        for word in tree.prefix.findall(match.group(1)):
            if word in tree.variables:
                continue
            if word in tree.defaults:
                found.append("%s: `%s` is a role default but no argument spec has it" % (where, word))
            elif word not in tree.words and not re.match(r"rdma_en\d+$", word):
                found.append("%s: `%s` is no variable of an argument spec and no name in the code" % (where, word))
        path = match.group(1).split()[0] if match.group(1).split() else ""
        if path.startswith(tuple(d + "/" for d in REPO_DIRS + ("tasks", "defaults", "files", "templates"))) and \
                not re.search(r"[<>*{|]", path) and not exists(tree, path, name):
            found.append("%s: %s does not exist" % (where, path))
    for match in re.finditer(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", prose):
        target = match.group(1)
        if "://" in target or target.startswith("mailto:"):
            continue
        if not os.path.exists(os.path.join(tree.root, os.path.dirname(name), target)):
            found.append("%s:%d: the link %s leads nowhere" % (name, prose.count("\n", 0, match.start()) + 1, target))
    return found


def playbook_examples(root):
    """[(where, argv)] of the example commands in the collection playbooks' header comments (`#   ansible-playbook
    ...`, continued by a trailing backslash)."""
    found = []
    for path in sorted(glob.glob(os.path.join(root, "playbooks", "*.yml"))):
        name = os.path.relpath(path, root)
        with open(path) as handle:
            comments = [(number, line[1:]) for number, line in enumerate(handle.read().splitlines(), 1)
                        if line.startswith("#")]
        body, start = [], None
        for number, line in comments:
            if start is None and line.strip().startswith("ansible-playbook "):
                start = number
            if start is not None:
                body.append(line)
                if not line.rstrip().endswith("\\"):
                    found += [("%s:%d" % (name, start), argv) for _offset, argv in commands("\n".join(body))]
                    body, start = [], None
    return found


def findings(root):
    """Every way the documentation disagrees with the tree at root, as sentences; [] when it agrees."""
    tree = Tree(root)
    found = []
    for name in doc_files(root):
        found += check_doc(tree, name)
    for where, argv in playbook_examples(root):
        found += check_command(tree, argv, where, where.split(":")[0])
    return found


def runnable_commands(root):
    """[(where, argv)] of every command in a block marked runnable, as written."""
    found = []
    for name in doc_files(root):
        with open(os.path.join(root, name)) as handle:
            text = handle.read()
        for line, lang, body, runnable in blocks(text):
            if runnable and lang in SHELL_LANGS:
                found += [("%s:%d" % (name, line + offset), argv) for offset, argv in commands(body)]
    return found
