"""A run started with ``--profile`` that is killed resumes signed in: the checkpoint
holds the session's cookie masked (a run folder never carries it), so the sign-in comes
back from the profile, and only when the folder's seal shows it is the person's own
sign-in, or when they name the profile again. Real CLI processes, a real local sign-in
site and real Chromium; the model is a scripted endpoint."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

import colorbrowser
from colorbrowser.agent.trajectory import read_steps
from colorbrowser.run.profiles import save_profile
from colorbrowser.testing import ScriptedEndpoint, act, run_cli, user_text

from .login_site import LoginSite

USER, PASSWORD = "ann", "correct horse 9"
SRC = str(Path(colorbrowser.__file__).resolve().parents[1])


def signed_in_profile(site: LoginSite) -> str:
    """Sign in over HTTP and save the session as the profile ``shop``; its cookie."""
    r = httpx.post(site.url("/login"), data={"user": USER, "password": PASSWORD})
    sid = r.cookies["sid"]
    save_profile("shop", site.url("/login"), {"cookies": [{
        "name": "sid", "value": sid, "domain": "127.0.0.1", "path": "/",
        "expires": time.time() + 3600, "httpOnly": True, "secure": False,
        "sameSite": "Lax"}], "origins": []})
    return sid


def killed_run(site: LoginSite, endpoint: ScriptedEndpoint, run_dir: Path) -> None:
    """``run --profile shop`` in its own process, killed (SIGKILL) after two steps."""
    env = {**os.environ, "PYTHONPATH": SRC}
    first = subprocess.Popen(
        [sys.executable, "-m", "colorbrowser", "run", "Read my account page",
         "--url", site.url("/account"), "--profile", "shop", "--base-url", endpoint.url,
         "--memory", "none", "--knowledge", "off", "--max-steps", "30",
         "--out", str(run_dir)],
        env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while len(read_steps(run_dir)) < 2:
        assert first.poll() is None, first.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert not (run_dir / "result.json").exists()


def resume(run_dir: Path, endpoint: ScriptedEndpoint, capsys, *flags: str) -> tuple[dict, str]:
    code = run_cli("resume", str(run_dir), "--base-url", endpoint.url, "--json", *flags)
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out.strip().splitlines()[-1]), err


def test_a_killed_profile_run_resumes_signed_in_from_the_profile_not_the_folder(
        tmp_path, capsys):
    phase = {"reading": False}

    def policy(messages):
        text = user_text(messages)
        if not phase["reading"]:
            assert f"Welcome, {USER}" in text  # the first run is signed in
            return act("wait", "scroll(0, 10)")
        return act("read", f"stop('{'in' if f'Welcome, {USER}' in text else 'out'}')")

    with LoginSite(USER, PASSWORD) as site, ScriptedEndpoint(policy, delay=0.3) as endpoint:
        sid = signed_in_profile(site)
        own = tmp_path / "own"
        killed_run(site, endpoint, own)
        meta = json.loads((own / "meta.json").read_text())
        assert meta["profile"]["name"] == "shop" and len(meta["profile"]["seal"]) == 32
        for copy in ("forged", "named"):  # the same killed run, three times
            shutil.copytree(own, tmp_path / copy)
        for copy in ("forged", "named"):  # as if mailed in: the seal is not this sign-in
            meta_file = tmp_path / copy / "meta.json"
            forged = json.loads(meta_file.read_text())
            forged["profile"]["seal"] = "0" * 32
            meta_file.write_text(json.dumps(forged))
        phase["reading"] = True

        result, _ = resume(own, endpoint, capsys)
        assert (result["status"], result["answer"]) == ("done", "in")

        result, err = resume(tmp_path / "forged", endpoint, capsys)
        assert (result["status"], result["answer"]) == ("done", "out")
        said = " ".join(err.split())  # the console wraps long lines
        assert "login profile 'shop'; it is not the same sign-in as yours" in said
        assert "resuming signed out (pass --profile shop to sign in)" in said

        result, _ = resume(tmp_path / "named", endpoint, capsys, "--profile", "shop")
        assert (result["status"], result["answer"]) == ("done", "in")

    # The session never entered a run folder, before or after resuming.
    files = [p for p in tmp_path.rglob("*") if p.is_file() and "data" not in p.parts]
    assert files and not any(sid.encode() in p.read_bytes() for p in files)
