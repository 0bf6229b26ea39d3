#!/usr/bin/env python3
"""Runs the shell commands of README.md and docs/*.md, so what the documentation tells users to type
works with the binary just built.

Every fenced block tagged ```bash runs as one `bash -eu` script (as a user would paste it: a
pipe into `head` is fine) and fails on a non-zero exit or on an error line from c3sim or Python
on stderr (which a pipe would otherwise hide); the blocks of one page
run in order in one scratch folder (a block may read what an earlier one wrote), with `c3sim` on
PATH (the built binary), `python3` the interpreter given (the module's), the built Python module on
PYTHONPATH, and the tree's examples/, hardware/,
docs/, tests/ and workloads/ linked in read-only use. A block tagged ```bash no-ci is shown to users
but not run here (it needs a GPU, installs packages, or takes minutes); it is listed and counted.
Output belongs in ```text blocks. A shell block under another tag (```sh, ```console, ```shell) or
an untagged block that starts with a command fails the check: every command is either run or
explicitly marked no-ci.

Usage: run_doc_commands.py --source DIR --c3sim PATH [--python PYTHON] [--python-path DIR]
                           [--no-python-module] [--list] [PAGE.md ...]
With --no-python-module (a build without the module) blocks that import c3sim are listed as
skipped.
Exit 0: every runnable block exited 0; 1: a block failed or a block is tagged wrongly.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^```(\S*)\s*(.*)$")
SHELL_TAGS = {"sh", "shell", "console", "zsh"}
COMMAND_START = re.compile(r"^(c3sim|bash|python3|pip|cmake|ctest|PYTHONPATH=|mpirun|\$ )")
LINKED = ("examples", "hardware", "docs", "tests", "workloads")
BLOCK_TIMEOUT_S = 300
# What a failing command writes before its exit status is lost in a pipe.
ERROR_LINE = re.compile(r"^(c3sim: error|Traceback |\S+Error: )", re.M)


class Block:
    def __init__(self, page, line, lang, tags, text):
        self.page, self.line, self.lang, self.tags, self.text = page, line, lang, tags, text

    def where(self):
        return f"{self.page}:{self.line}"


def blocks_of(page_path, display):
    """Every fenced block of a page, with its opening line number and info string."""
    blocks, open_block = [], None
    for number, line in enumerate(page_path.read_text(encoding="utf-8").splitlines(), start=1):
        match = FENCE.match(line)
        if open_block is None:
            if match:
                open_block = Block(display, number, match.group(1), match.group(2).split(), [])
        elif line.strip() == "```":
            open_block.text = "\n".join(open_block.text) + "\n"
            blocks.append(open_block)
            open_block = None
        else:
            open_block.text.append(line)
    if open_block is not None:
        raise SystemExit(f"{display}:{open_block.line}: fenced block never closed")
    return blocks


def mistagged(block):
    """Why a block is neither runnable nor explicitly exempt, or None."""
    if block.lang in SHELL_TAGS:
        return f"shell block tagged '{block.lang}': tag it 'bash' (run in CI) or 'bash no-ci'"
    if block.lang == "":
        first = next((l for l in block.text.splitlines() if l.strip()), "")
        if COMMAND_START.match(first):
            return ("untagged block starting with a command: commands go in ```bash (or ```bash no-ci), "
                    "their output in ```text")
    if block.lang == "bash" and block.tags and block.tags != ["no-ci"]:
        return f"unknown tags {block.tags} on a bash block (only 'no-ci')"
    return None


def scratch_for(source):
    root = pathlib.Path(tempfile.mkdtemp(prefix="c3sim_docs_"))
    for name in LINKED:
        if (source / name).exists():
            (root / name).symlink_to(source / name)
    return root


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, type=pathlib.Path)
    parser.add_argument("--c3sim", required=True, type=pathlib.Path)
    parser.add_argument("--python", type=pathlib.Path, default=pathlib.Path(sys.executable))
    parser.add_argument("--python-path", type=pathlib.Path)
    parser.add_argument("--no-python-module", action="store_true")
    parser.add_argument("--list", action="store_true", help="list the blocks, run nothing")
    parser.add_argument("pages", nargs="*")
    args = parser.parse_args()

    source = args.source.resolve()
    pages = args.pages or ["README.md"] + sorted(
        str(p.relative_to(source)) for p in (source / "docs").glob("*.md"))
    env = dict(os.environ)
    bin_dir = pathlib.Path(tempfile.mkdtemp(prefix="c3sim_docs_bin_"))
    (bin_dir / "c3sim").symlink_to(args.c3sim.resolve())
    (bin_dir / "python3").symlink_to(args.python)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if args.python_path:
        env["PYTHONPATH"] = str(args.python_path.resolve())

    errors, ran, exempt, skipped, total_s = [], 0, [], [], 0.0
    for page in pages:
        blocks = blocks_of(source / page, page)
        for block in blocks:
            problem = mistagged(block)
            if problem:
                errors.append(f"{block.where()}: {problem}")
        runnable = [b for b in blocks if b.lang == "bash" and not b.tags]
        if args.no_python_module:
            skipped += [b for b in runnable if "import c3sim" in b.text]
            runnable = [b for b in runnable if "import c3sim" not in b.text]
        exempt += [b for b in blocks if b.lang == "bash" and b.tags == ["no-ci"]]
        if args.list or not runnable:
            for b in runnable:
                print(f"run     {b.where()}: {b.text.splitlines()[0] if b.text.strip() else ''}")
            continue
        scratch = scratch_for(source)
        try:
            for block in runnable:
                started = time.monotonic()
                try:
                    done = subprocess.run(["bash", "-eu", "-c", block.text], cwd=scratch, env=env,
                                          capture_output=True, text=True, check=False,
                                          timeout=BLOCK_TIMEOUT_S)
                    code, output = done.returncode, done.stdout + done.stderr
                    if code == 0 and ERROR_LINE.search(done.stderr):
                        code = "an error on stderr"
                except subprocess.TimeoutExpired:
                    code, output = "timeout", f"over {BLOCK_TIMEOUT_S} s"
                seconds = time.monotonic() - started
                total_s += seconds
                ran += 1
                print(f"{'ok  ' if code == 0 else 'FAIL'} {seconds:6.2f} s  {block.where()}", flush=True)
                if code != 0:
                    tail = "\n".join(output.splitlines()[-30:])
                    errors.append(f"{block.where()}: exit {code}\n{block.text}---\n{tail}")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(bin_dir, ignore_errors=True)

    for b in exempt:
        print(f"no-ci   {b.where()}: {b.text.splitlines()[0] if b.text.strip() else ''}")
    for b in skipped:
        print(f"skipped {b.where()}: imports c3sim, and this build has no Python module")
    print(f"{ran} blocks run in {total_s:.1f} s, {len(exempt)} marked no-ci, {len(skipped)} skipped, "
          f"{len(errors)} problems")
    for e in errors:
        print(f"\n{e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
