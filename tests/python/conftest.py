"""Shared fixtures: the ctwin command and the repository, as CTest passes them."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def ctwin_binary() -> str:
    binary = os.environ.get("CTWIN_BINARY")
    if not binary:
        pytest.skip("CTWIN_BINARY is not set (run through ctest)")
    return binary


@pytest.fixture(scope="session")
def cli(ctwin_binary):
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([ctwin_binary, *args], capture_output=True, text=True, cwd=REPO)
    return run
