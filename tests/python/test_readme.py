"""README's Python example runs as printed and prints what the README shows.

The example is the first ```bash block under "## Python" that holds a `python3 -c "` command,
followed by a ```text block of what it prints: its code runs with this interpreter and this c3sim
(the build tree's module through PYTHONPATH under ctest, the installed package under the
pip-install test), whatever the block puts before the command (a venv's path).
"""

import os
import re
import subprocess
import sys


def readme_example(readme):
    section = readme[readme.index("## Python\n"):]
    for block, shown in re.findall(r"```bash\n(.*?)```\s*```text\n(.*?)```", section, re.S):
        command = re.search(r'python3? -c "\n(.*?\n)"\n', block, re.S)
        if command:
            return command.group(1), shown
    raise AssertionError('no ```bash block with a python3 -c "..." command, then a ```text block, '
                         'under ## Python')


def test_readme_python_example(source_dir):
    code, shown = readme_example((source_dir / "README.md").read_text())
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env=dict(os.environ), cwd=source_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
