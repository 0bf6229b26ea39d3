"""tests/docs/run_doc_commands.py, the check that runs the documentation's commands: on a scratch
tree of pages it passes what works and fails what does not, whatever the fence says."""

import os
import subprocess
import sys

import pytest


def run_checker(source_dir, tree, pages):
    """Writes `pages` ({relative path: text}) under `tree` and runs the checker on them."""
    binary = os.environ.get("C3SIM_CLI")
    if not binary:
        pytest.skip("C3SIM_CLI (the built c3sim binary) is not set")
    (tree / "docs").mkdir(exist_ok=True)
    for name, text in pages.items():
        (tree / name).write_text(text)
    return subprocess.run([sys.executable, str(source_dir / "tests" / "docs" / "run_doc_commands.py"),
                           "--source", str(tree), "--c3sim", binary, "--no-python-module", *pages],
                          capture_output=True, text=True, check=False)


def test_blocks_of_a_page_run_in_order_in_one_folder(source_dir, tmp_path):
    done = run_checker(source_dir, tmp_path, {"README.md": (
        "```bash\nc3sim generate tp-block --tp 8 -o tp.yaml\n```\n\n"
        "```text\nwhatever it prints\n```\n\n"
        "```bash\ntest -s tp.yaml && c3sim run tp.yaml --policy base --format table | head -3\n```\n")})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 blocks run" in done.stdout
    assert not (tmp_path / "tp.yaml").exists()  # the scratch folder, not the tree


@pytest.mark.parametrize("block, problem", [
    ("```bash\nfalse\n```\n", "exit 1"),
    # A failing c3sim whose exit status a pipe hides: its error line on stderr still fails the block.
    ("```bash\nc3sim run no_such_file.yaml | head -1\n```\n", "an error on stderr"),
    ("```sh\nc3sim --version\n```\n", "tagged 'sh'"),
    ("```\nc3sim --version\nc3sim 1.0\n```\n", "untagged block starting with a command"),
    ("```bash skip\nc3sim --version\n```\n", "unknown tags"),
])
def test_what_fails(source_dir, tmp_path, block, problem):
    done = run_checker(source_dir, tmp_path, {"docs/page.md": "# A page\n\n" + block})
    assert done.returncode == 1, done.stdout
    assert problem in done.stderr, done.stderr


def test_no_ci_blocks_are_listed_not_run(source_dir, tmp_path):
    done = run_checker(source_dir, tmp_path, {"docs/page.md": "```bash no-ci\nfalse\n```\n"})
    assert done.returncode == 0, done.stderr
    assert "0 blocks run" in done.stdout and "1 marked no-ci" in done.stdout
    assert "no-ci   docs/page.md:1: false" in done.stdout
