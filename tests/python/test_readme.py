"""README's Python example runs as printed and prints what the README shows.

The example is the README's first ```sh block under "## Python" that holds a `python3 -c "`
command: its code runs with this interpreter and this c3sim (the build tree's module through
PYTHONPATH under ctest, the installed package under the pip-install test), whatever the README
puts before the command (a build step, a PYTHONPATH, a venv's path).
"""

import os
import re
import subprocess
import sys


def readme_example(readme):
    section = readme[readme.index("## Python\n"):]
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        command = re.search(r'python3? -c "\n(.*?)\n"\n(.*)', block, re.S)
        if command:
            return command.group(1) + "\n", command.group(2)
    raise AssertionError('no ```sh block with a python3 -c "..." command under ## Python')


def test_readme_python_example(source_dir):
    code, shown = readme_example((source_dir / "README.md").read_text())
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env=dict(os.environ), cwd=source_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
