"""README's Python example runs as printed and prints what the README shows."""

import os
import re
import subprocess
import sys


def test_readme_python_example(source_dir):
    readme = (source_dir / "README.md").read_text()
    section = readme[readme.index("## Python\n"):]
    # The command block, then the block of what it prints.
    blocks = re.search(r"```bash\n(.*?)```\s*```text\n(.*?)```", section, re.S)
    assert blocks, "README's Python section: a ```bash block followed by a ```text block"
    command, shown = blocks.group(1), blocks.group(2)
    prefix, suffix = 'python3 -c "\n', '"\n'
    assert command.startswith(prefix) and command.endswith(suffix), command
    code = command[len(prefix):-len(suffix)]
    # The test's PYTHONPATH points at this build's module (the README's: an installed package).
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env=dict(os.environ), cwd=source_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
