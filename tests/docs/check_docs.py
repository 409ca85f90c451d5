#!/usr/bin/env python3
"""Checks the links and the reproduce commands of a project's markdown (README.md and docs/**/*.md).

Usage: check_docs.py [--psbench PSBENCH] [--untracked] [ROOT]   (ROOT defaults to the current directory)

1. Every relative link and image ([x](path), ![x](path), [x]: path, <img src=...>, <a href=...>) names a file
   of ROOT, its #anchor (if it points into a .md file, or into the page itself) a heading of that file (GitHub's
   slugs: lowercase, punctuation but - and _ dropped, each space a -, a repeated heading gets -1, -2, ...) or an
   <a name/id> in it. Web links (http, https, mailto, ...) are not followed.
2. Every command in a fenced shell block (no language, or sh, bash, shell, console) under a heading that holds
   "Reproduce" or "Regenerate" (until the next heading of that level or higher) names something that exists:
   a file of ROOT (a script: jobs/rack/rack.sh), `psbench SUBCOMMAND` (build/.../psbench too) whose subcommand
   `PSBENCH --help` lists (and its own subcommand, for `psbench model validate`), a program the build makes
   (an add_executable target, run from the build folder), or a well-known system command (SYSTEM_COMMANDS).
   Launchers (mpirun, srun, sudo, env, timeout, ...) are looked through to the program they run; interpreters
   (python3, bash, sh) and job submitters (sbatch, qsub) must name a file of ROOT when they name a script;
   `cmake --preset`/`ctest --preset` must name a preset of ROOT/CMakePresets.json. `VAR=x` prefixes, `cd`
   (paths after it are taken from there), line continuations, &&, ||, ;, |, subshells and $(...) are followed.

A file "of ROOT" is one git tracks when ROOT is the top of a git work tree (git ls-files), otherwise one that
exists under ROOT, outside ROOT/build (as for the test fixtures, tests/docs/fixtures). --untracked counts the
files git does not ignore but does not track yet (new pages before their commit) as files of ROOT too.
One line per problem, FILE:LINE: what is wrong; exit status 1 if there is any, 0 if none, 2 on bad usage.
"""

import argparse
import json
import os
import posixpath
import re
import shlex
import subprocess
import sys
import urllib.parse

# Programs taken as they are: the system's, not the project's.
SYSTEM_COMMANDS = {
    "ctest", "cmake", "git", "make", "ninja", "pip", "pip3", "apt-get", "apt", "dnf", "yum", "spack", "module",
    "mkdir", "rm", "rmdir", "cp", "mv", "ln", "ls", "cat", "less", "head", "tail", "tee", "grep", "sed", "awk",
    "sort", "uniq", "wc", "diff", "cmp", "find", "xargs", "tar", "gzip", "gunzip", "zcat", "unzip", "curl", "wget",
    "sha256sum", "md5sum", "du", "df", "chmod", "chown", "touch", "echo", "printf", "true", "false", "test", "[",
    "export", "set", "unset", "read", "exit", "wait", "kill", "sleep", "nproc", "lscpu", "hostname", "uname", "date",
    "ip", "tc", "ps", "pgrep", "watch", "jq", "h5dump", "h5ls", "gdb", "perf", "ssh", "scp", "rsync", "which",
    "salloc", "sinfo", "squeue", "scancel", "sacct", "scontrol", "qstat", "qdel", "pbsnodes", "ulimit", "seq",
    "column", "ompi_info", "lstopo", "numactl",
}
# Run the program that follows their options: {program: options that take a value}.
LAUNCHERS = {
    "mpirun": {"-np", "-n", "--np", "-c", "-N", "--n", "--hostfile", "-hostfile", "--machinefile", "-machinefile",
               "-x", "--map-by", "-map-by", "--bind-to", "-bind-to", "--rank-by", "-H", "--host", "-host",
               "--npernode", "-npernode", "-wdir", "--wdir", "--prefix", "--output-filename", "--rankfile",
               "-rf", "--mca", "-mca", "--gmca", "-gmca", "--app", "-s", "--preload-files"},
    "srun": {"-n", "-N", "-c", "-p", "-t", "-J", "-o", "-e", "-w", "-x", "-D", "-A", "-m", "--mpi"},
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-U"},
    "env": {"-u", "-C", "-S"},
    "time": {"-f", "-o"},
    "nohup": set(),
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "taskset": {"-c", "--cpu-list"},
    "stdbuf": {"-i", "-o", "-e"},
    "nice": {"-n"},
}
LAUNCHERS["mpiexec"] = LAUNCHERS["orterun"] = LAUNCHERS["mpirun"]
TWO_VALUE_OPTIONS = {"--mca", "-mca", "--gmca", "-gmca"}
# Run a script named by their first argument, if they name one: {program: options that take a value}.
INTERPRETERS = {"python3": {"-W", "-X"}, "python": {"-W", "-X"}, "bash": {"-o", "-O"}, "sh": {"-o"},
                "source": set(), ".": set()}
STOP_OPTIONS = {"-c", "-m", "--wrap"}  # code or a module follows, not a script
SUBMITTERS = {"sbatch": {"-N", "-n", "-c", "-p", "-t", "-J", "-o", "-e", "-A", "-w", "-x", "-D", "-d", "-q"},
              "qsub": {"-l", "-v", "-N", "-q", "-o", "-e", "-A", "-W", "-j", "-P", "-M", "-m", "-a", "-J"}}
SHELL_KEYWORDS_BEFORE_COMMAND = {"then", "else", "do", "!", "{", "elif", "if", "while", "until", "time"}
SHELL_KEYWORDS_ALONE = {"fi", "done", "esac", "}"}
SHELL_LANGUAGES = {"", "sh", "bash", "shell", "console", "shell-session", "zsh"}
SEPARATORS = {"&&", "||", ";", "|", "&", "|&", ";;", "\n"}
REDIRECTIONS = {"<", ">", ">>", ">&", "&>", "&>>", "<<", "<<-", "<<<", "<&", ">|", "<>"}
OPERATORS = sorted(SEPARATORS - {"\n"} | REDIRECTIONS | {"(", ")"}, key=len, reverse=True)
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
LINK = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]*)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_LINK = re.compile(r"<(?:img|a|source)\b[^>]*?\b(?:src|href)\s*=\s*[\"']([^\"']*)[\"']", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:name|id)\s*=\s*[\"']([^\"']*)[\"']", re.IGNORECASE)
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
TARGETS = re.compile(r"\b(?:add_executable|psbench_add_unit_test|psbench_add_mpi_test|psbench_add_fuzzer)\(\s*"
                     r"([A-Za-z_][A-Za-z0-9_-]*)")


class Project:
    """The files of ROOT (git's, or the disk's) and what the commands may name."""

    def __init__(self, root, psbench, untracked=False):
        self.root = os.path.abspath(root)
        self.files = self._files(untracked)
        self.dirs = {posixpath.dirname(f) for f in self.files}
        for d in list(self.dirs):
            while d:
                d = posixpath.dirname(d)
                self.dirs.add(d)
        self.psbench = psbench
        self._subcommands = {}
        self._anchors = {}
        self.targets = set()
        for path in self.files:
            if path.endswith(("CMakeLists.txt", ".cmake")):
                self.targets.update(TARGETS.findall(re.sub(r"#[^\n]*", "", self.read(path))))
        self.presets = None
        if "CMakePresets.json" in self.files:
            presets = json.loads(self.read("CMakePresets.json"))
            self.presets = {kind: {p["name"] for p in presets.get(kind, [])}
                            for kind in ("configurePresets", "buildPresets", "testPresets", "workflowPresets")}

    def _files(self, untracked):
        top = subprocess.run(["git", "-C", self.root, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
        if top.returncode == 0 and os.path.realpath(top.stdout.strip()) == os.path.realpath(self.root):
            def listed(*extra):
                out = subprocess.run(["git", "-C", self.root, "ls-files", "-z", *extra], capture_output=True,
                                     text=True, check=True).stdout
                return {f for f in out.split("\0") if f}
            files = listed() - listed("--deleted")
            return files | listed("--others", "--exclude-standard") if untracked else files
        found = set()
        for directory, subdirectories, names in os.walk(self.root):
            if directory == self.root:  # no build output or git's own files count as the project's
                subdirectories[:] = [d for d in subdirectories if d not in ("build", ".git")]
            for name in names:
                found.add(os.path.relpath(os.path.join(directory, name), self.root).replace(os.sep, "/"))
        return found

    def read(self, path):
        with open(os.path.join(self.root, path), encoding="utf-8") as f:
            return f.read()

    def pages(self):
        return sorted(f for f in self.files if f == "README.md" or (f.startswith("docs/") and f.endswith(".md")))

    def anchors(self, page):
        if page not in self._anchors:
            self._anchors[page] = page_anchors(self.read(page).splitlines())
        return self._anchors[page]

    def subcommands(self, *path):
        """The subcommands `psbench PATH... --help` lists; None when no psbench binary was given."""
        if self.psbench is None:
            return None
        if path not in self._subcommands:
            out = subprocess.run([self.psbench, *path, "--help"], capture_output=True, text=True, timeout=60)
            names, listing = set(), False
            for line in out.stdout.splitlines():
                if line.startswith("Subcommands:"):
                    listing = True
                elif listing and re.match(r"^  \S", line):
                    names.add(line.split()[0])
                elif listing and line.strip() and not line.startswith(" "):
                    listing = False
            self._subcommands[path] = names
        return self._subcommands[path]


def code_blocks_and_text(lines):
    """Yields (number, line, fence) for every line: fence is (language, indent) inside a fenced block, else None;
    the fence lines themselves come with fence "fence"."""
    fence = None
    for number, line in enumerate(lines, 1):
        match = FENCE.match(line)
        if match and match.group(2)[0] == "`" and "`" in line[match.end(2):]:
            match = None  # inline code, not a fence: a backtick fence's info string holds no backtick
        if fence is None and match:
            fence = (match.group(2), match.group(3).lower(), len(match.group(1)))
            yield number, line, "fence"
        elif fence is not None and re.match(r"^\s*" + re.escape(fence[0][0]) + "{" + str(len(fence[0])) + r",}\s*$",
                                            line):
            fence = None
            yield number, line, "fence"
        else:
            yield number, line, None if fence is None else (fence[1], fence[2])


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings(lines):
    """(number, level, text) of every ATX or setext heading outside code blocks."""
    found, previous = [], None
    for number, line, fence in code_blocks_and_text(lines):
        if fence is not None:
            previous = None
            continue
        match = ATX_HEADING.match(line)
        if match:
            found.append((number, len(match.group(1)), (match.group(2) or "").strip()))
            previous = None
            continue
        if previous and re.match(r"^ {0,3}(=+|-+)\s*$", line) and previous[1].strip() \
                and not previous[1].lstrip().startswith(("|", "-", "*", ">")):
            found.append((previous[0], 1 if line.strip()[0] == "=" else 2, previous[1].strip()))
            previous = None
            continue
        previous = (number, line)
    return found


def page_anchors(lines):
    anchors, seen = set(), {}
    for _, _, text in headings(lines):
        base = slug(text)
        count = seen.get(base, 0)
        seen[base] = count + 1
        anchors.add(base if count == 0 else f"{base}-{count}")
    for _, line, fence in code_blocks_and_text(lines):
        if fence is None:
            anchors.update(HTML_ANCHOR.findall(line))
    return anchors


def check_links(project, page, lines, problems):
    directory = posixpath.dirname(page)
    for number, line, fence in code_blocks_and_text(lines):
        if fence is not None:
            continue
        text = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        targets = LINK.findall(text) + REFERENCE.findall(text) + HTML_LINK.findall(text)
        for target in targets:
            target = target.strip("<>").strip()
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            path, _, anchor = target.partition("#")
            path = urllib.parse.unquote(path.partition("?")[0])
            where = f"{page}:{number}"
            if path:
                resolved = posixpath.normpath(path.lstrip("/") if path.startswith("/") else
                                              posixpath.join(directory, path))
                resolved = "" if resolved == "." else resolved
                if resolved.startswith("../") or resolved == "..":
                    problems.append(f"{where}: link '{target}' leaves the repository")
                    continue
                if resolved not in project.files and resolved.rstrip("/") not in project.dirs:
                    problems.append(f"{where}: link '{target}' names no file of the repository ({resolved})")
                    continue
            else:
                resolved = page
            if anchor and resolved.endswith(".md") and resolved in project.files \
                    and not re.match(r"^L\d+(-L\d+)?$", anchor):
                if urllib.parse.unquote(anchor) not in project.anchors(resolved):
                    problems.append(f"{where}: link '{target}': {resolved} has no heading or anchor '#{anchor}'")


def reproduce_blocks(lines):
    """(first line number, [(number, text)], language) of every fenced block under a Reproduce/Regenerate heading."""
    heading_at = {number: (level, text) for number, level, text in headings(lines)}
    section_level, blocks, block = None, [], None
    for number, line, fence in code_blocks_and_text(lines):
        if number in heading_at and fence is None:
            level, text = heading_at[number]
            if section_level is not None and level <= section_level:
                section_level = None
            if section_level is None and re.search(r"reproduc|regenerat", text, re.IGNORECASE):
                section_level = level
        if fence == "fence":
            if block is None:
                block = (number, [], None)
            else:
                if section_level is not None and block[2] in SHELL_LANGUAGES:
                    blocks.append(block)
                block = None
        elif fence is not None and block is not None:
            language, indent = fence
            body = line[indent:] if line[:indent].strip() == "" else line.lstrip()
            block = (block[0], block[1] + [(number, body)], language)
    return blocks


def command_lines(block_lines, language):
    """Joins continuations, drops comments, heredoc bodies and (console blocks) output: (number, command text)."""
    joined, pending, start, heredoc = [], "", None, None
    for number, text in block_lines:
        if heredoc is not None:
            if text.strip() == heredoc:
                heredoc = None
            continue
        if language in ("console", "shell-session") and not pending:
            if not text.lstrip().startswith("$ "):
                continue
            text = text.lstrip()[2:]
        elif not pending and text.lstrip().startswith("$ "):
            text = text.lstrip()[2:]
        if start is None:
            start = number
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        pending += text
        match = re.search(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?", pending)
        if match:
            heredoc = match.group(1)
        joined.append((start, strip_comment(pending)))
        pending, start = "", None
    if pending:
        joined.append((start, strip_comment(pending)))
    return [(n, t) for n, t in joined if t.strip()]


def strip_comment(text):
    """The command without its # comment (a # that starts a word, outside quotes)."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i]
    return text


def substitutions(text):
    """The text with every $(...) and `...` replaced by a word, and the commands they held."""
    inner, out, i = [], [], 0
    while i < len(text):
        if text.startswith("$(", i):
            depth, j = 0, i + 1
            while j < len(text):
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            body = text[i + 2:j]
            if not body.startswith("("):  # $((arithmetic)) holds no command
                inner.append(body)
            out.append("SUBSTITUTION")
            i = j + 1
        elif text[i] == "`":
            j = text.find("`", i + 1)
            j = len(text) if j < 0 else j
            inner.append(text[i + 1:j])
            out.append("SUBSTITUTION")
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out), inner


def tokens(text):
    """The shell's words and operators (a run of operator characters, as shlex gives it, split into operators)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    words = []
    for word in lexer:
        if word and all(c in ";&|()<>" for c in word):
            while word:
                operator = next(o for o in OPERATORS if word.startswith(o))
                words.append(operator)
                word = word[len(operator):]
        else:
            words.append(word)
    return words


class CommandChecker:
    def __init__(self, project, problems):
        self.project = project
        self.problems = problems

    def check_block(self, page, first, block_lines, language):
        cwd = ""  # relative to the root; None once it cannot be known
        for number, text in command_lines(block_lines, language):
            cwd = self.check_line(f"{page}:{number}", text, cwd)

    def check_line(self, where, text, cwd):
        text, inner = substitutions(text)
        for body in inner:
            self.check_line(where, body, cwd)
        try:
            words = tokens(text)
        except ValueError as error:
            self.problems.append(f"{where}: cannot read the command '{text.strip()}': {error}")
            return cwd
        stack, command, redirected = [], [], False
        for word in words + ["\n"]:
            if word in SEPARATORS or word in ("(", ")"):
                cwd = self.check_command(where, command, cwd)
                command, redirected = [], False
                if word == "(":
                    stack.append(cwd)
                elif word == ")" and stack:
                    cwd = stack.pop()
            elif word in REDIRECTIONS:
                redirected = True  # its target is no word of the command
            elif redirected:
                redirected = False
            else:
                command.append(word)
        return cwd

    def check_command(self, where, words, cwd):
        while words and (ASSIGNMENT.match(words[0]) or words[0] in SHELL_KEYWORDS_BEFORE_COMMAND):
            words = words[1:]
        if not words or words[0] in SHELL_KEYWORDS_ALONE or words[0] in ("for", "case", "in"):
            return cwd
        program, args = words[0], words[1:]
        if program == "cd":
            target = args[0] if args else None
            if target is None or "$" in target or target.startswith(("~", "-")) or cwd is None:
                return None
            return None if target.startswith("/") else posixpath.normpath(posixpath.join(cwd, target))
        self.check_program(where, program, args, cwd)
        return cwd

    def check_program(self, where, program, args, cwd):
        name = posixpath.basename(program)
        if name == "psbench":
            self.check_psbench(where, args)
        elif "/" in program:
            self.check_file(where, program, cwd, "names no file of the repository")
        elif program in LAUNCHERS:
            rest = skip_options(args, LAUNCHERS[program], also_assignments=program in ("env", "sudo"))
            if program == "timeout" and rest:
                rest = rest[1:]  # the duration
            if program == "taskset" and rest and "-c" not in args and "--cpu-list" not in args:
                rest = rest[1:]  # the mask
            if rest:
                self.check_program(where, rest[0], rest[1:], cwd)
        elif program in INTERPRETERS:
            if any(a in STOP_OPTIONS for a in args):
                return
            rest = skip_options(args, INTERPRETERS[program])
            if rest and rest[0] != "-":  # "-": the script comes on standard input
                self.check_file(where, rest[0], cwd, f"is not a script of the repository ({program} runs it)")
        elif program in SUBMITTERS:
            if any(a.startswith("--wrap") for a in args):
                return
            rest = skip_options(args, SUBMITTERS[program])
            if rest:
                self.check_file(where, rest[0], cwd, f"is not a job script of the repository ({program} submits it)")
        elif program in ("cmake", "ctest"):
            self.check_preset(where, program, args)
        elif program in SYSTEM_COMMANDS or program == "SUBSTITUTION":
            return
        elif program.startswith("$"):
            return  # a variable's program: nothing to check it against
        elif program in self.project.targets:
            return  # a program the build makes, on PATH or run from its folder
        else:
            self.problems.append(f"{where}: '{program}' is neither a file of the repository, psbench, nor a known "
                                 "system command")

    def check_file(self, where, path, cwd, what):
        if "$" in path or path.startswith(("/", "~")) or cwd is None:
            return  # a variable, an absolute path or an unknown folder: nothing to check it against
        resolved = posixpath.normpath(posixpath.join(cwd, path))
        if resolved in self.project.files:
            return
        if posixpath.basename(resolved) in self.project.targets and resolved.split("/")[0] == "build":
            return  # a program the build makes, run from the build folder
        self.problems.append(f"{where}: '{path}' {what}")

    def check_psbench(self, where, args):
        known = self.project.subcommands()
        if known is None:
            return
        rest = [a for a in args if not a.startswith("-")]
        if not rest:
            if not any(a in ("-h", "--help", "--version") for a in args):
                self.problems.append(f"{where}: psbench without a subcommand")
            return
        if rest[0] not in known:
            self.problems.append(f"{where}: 'psbench {rest[0]}' is not a subcommand (psbench --help lists: "
                                 f"{', '.join(sorted(known))})")
            return
        nested = self.project.subcommands(rest[0])
        position = args.index(rest[0])
        following = args[position + 1:position + 2]
        if nested and following and not following[0].startswith("-") and following[0] not in nested:
            self.problems.append(f"{where}: 'psbench {rest[0]} {following[0]}' is not a subcommand "
                                 f"(psbench {rest[0]} --help lists: {', '.join(sorted(nested))})")

    def check_preset(self, where, program, args):
        presets = self.project.presets
        for i, arg in enumerate(args):
            if arg.startswith("--preset="):
                name = arg.split("=", 1)[1]
            elif arg == "--preset" and i + 1 < len(args):
                name = args[i + 1]
            else:
                continue
            kind = "testPresets" if program == "ctest" else "buildPresets" if "--build" in args else \
                "workflowPresets" if "--workflow" in args else "configurePresets"
            if presets is None or "$" in name:
                return
            if name not in presets[kind]:
                self.problems.append(f"{where}: '{program} --preset {name}': CMakePresets.json has no such entry in "
                                     f"{kind} ({', '.join(sorted(presets[kind]))})")


def skip_options(args, valued, also_assignments=False):
    """The words from the first one that is neither an option (with its value) nor, if asked, VAR=x."""
    i = 0
    while i < len(args):
        arg = args[i]
        if also_assignments and ASSIGNMENT.match(arg):
            i += 1
        elif arg == "--":
            return args[i + 1:]
        elif arg.startswith("-") and arg != "-":
            i += 1 + (2 if arg in TWO_VALUE_OPTIONS else 1 if arg in valued else 0)
        else:
            return args[i:]
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", nargs="?", default=".")
    parser.add_argument("--psbench", help="the psbench binary, whose --help lists the subcommands")
    parser.add_argument("--untracked", action="store_true", help="count files git does not track yet too")
    options = parser.parse_args()
    if not os.path.isdir(options.root):
        parser.error(f"{options.root} is not a folder")
    project = Project(options.root, options.psbench, options.untracked)
    problems = []
    checker = CommandChecker(project, problems)
    for page in project.pages():
        lines = project.read(page).splitlines()
        check_links(project, page, lines, problems)
        for first, block_lines, language in reproduce_blocks(lines):
            checker.check_block(page, first, block_lines, language)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
