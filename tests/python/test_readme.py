"""README's Python example runs as printed and prints what the README shows."""

import os
import re
import subprocess
import sys


def test_readme_python_example(source_dir):
    readme = (source_dir / "README.md").read_text()
    section = readme[readme.index("## Python\n"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    command, _, shown = block.partition('\n"\n')
    prefix = 'PYTHONPATH=build/sim/python python3 -c "\n'
    assert command.startswith(prefix), command
    code = command[len(prefix):]
    # The test's PYTHONPATH points at this build's module (the README's is build/, the default).
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env=dict(os.environ), cwd=source_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
