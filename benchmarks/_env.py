"""The environment ``python -m benchmarks compare`` runs diffprivlib in.

diffprivlib 0.6.6 does not import on scikit-learn >= 1.8, so it gets a virtual
environment of its own (default ``~/.cache/skdp/bench-diffprivlib``) with the pinned
versions and this checkout installed in editable mode. It is built once from the package
registry and reused while it holds the right versions.
"""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

PINS = {"diffprivlib": "0.6.6", "scikit-learn": "1.7.2"}
# what the probe prints: the pinned distributions' versions and where skdp imports from
_PROBE = """
import importlib.metadata as m, importlib.util as u, json, platform
versions = {}
for name in NAMES:
    try:
        versions[name] = m.version(name)
    except m.PackageNotFoundError:
        versions[name] = None
spec = u.find_spec("skdp")
versions["skdp_origin"] = spec.origin if spec else None
versions["python"] = platform.python_version()
print(json.dumps(versions))
"""


class EnvError(RuntimeError):
    """The environment could not be built or used; the message says what to do."""


def default_env_dir():
    """``$XDG_CACHE_HOME/skdp/bench-diffprivlib`` (``~/.cache`` when it is unset)."""
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "skdp" / "bench-diffprivlib"


def env_python(env_dir):
    """The interpreter of the virtual environment at ``env_dir``."""
    env_dir = Path(env_dir)
    if sys.platform == "win32":
        return env_dir / "Scripts" / "python.exe"
    return env_dir / "bin" / "python"


def probe(python):
    """Versions of the pinned packages and skdp's location seen by ``python``; None if it
    does not run."""
    code = f"NAMES = {sorted(PINS)!r}\n{_PROBE}"
    try:
        done = subprocess.run(
            [str(python), "-c", code], capture_output=True, text=True, timeout=120
        )
        return json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def reuse_problem(info, checkout):
    """Why an environment whose probe gave ``info`` cannot be reused; None if it can."""
    if info is None:
        return "no working environment there"
    wrong = [
        f"{name} {info.get(name) or 'missing'} (needs {version})"
        for name, version in PINS.items()
        if info.get(name) != version
    ]
    origin = info.get("skdp_origin")
    package = Path(checkout).resolve() / "skdp"
    if origin is None or Path(origin).resolve().parent != package:
        wrong.append(f"skdp imports from {origin or 'nowhere'}, not from {package}")
    return "; ".join(wrong) or None


def install_command(python, checkout):
    """The pip command that installs the pins and this checkout (editable, bench extra)."""
    pins = [f"{name}=={version}" for name, version in PINS.items()]
    return [str(python), "-m", "pip", "install", "-e", f"{checkout}[bench]", *pins]


def _manual_steps(env_dir, checkout):
    python = env_python(env_dir)
    return (
        f"  {Path(sys.executable).name} -m venv {shlex.quote(str(env_dir))}\n"
        f"  {shlex.join(install_command(python, checkout))}\n"
        f"then run python -m benchmarks compare --env-dir {env_dir} again"
    )


def ensure_env(env_dir, checkout, *, run=subprocess.run, log=print):
    """The interpreter of a ready environment at ``env_dir``, built when needed.

    Reused as it is when it has the pinned versions and imports skdp from ``checkout``;
    otherwise created (``python -m venv``) if absent and completed with pip. ``run`` runs
    the commands (``subprocess.run``'s signature); pip's output goes to
    ``env_dir/build.log``. Raises :class:`EnvError` saying what to do when pip fails,
    e.g. without access to the package registry.
    """
    env_dir, python = Path(env_dir), env_python(env_dir)
    problem = reuse_problem(probe(python), checkout)
    if problem is None:
        log(f"reusing {env_dir} (diffprivlib {PINS['diffprivlib']}, "
            f"scikit-learn {PINS['scikit-learn']})")  # fmt: skip
        return python
    log(f"building {env_dir}: {problem}; pip's log: {env_dir / 'build.log'}")
    steps = []
    if not python.exists():
        steps.append([sys.executable, "-m", "venv", str(env_dir)])
    steps.append(install_command(python, checkout))
    for command in steps:
        env_dir.mkdir(parents=True, exist_ok=True)
        with open(env_dir / "build.log", "a", encoding="utf-8") as out:
            out.write(f"$ {' '.join(map(str, command))}\n")
            out.flush()
            done = run(command, stdout=out, stderr=subprocess.STDOUT, check=False)
        if done.returncode != 0:
            raise EnvError(
                f"could not build the diffprivlib environment: `{' '.join(command[:4])} ...` "
                f"failed (exit {done.returncode}; see {env_dir / 'build.log'}).\n"
                "It needs the package registry (PyPI) once; afterwards it is reused offline.\n"
                "Run the command again where the registry is reachable, or build it by hand:\n"
                + _manual_steps(env_dir, checkout)
                + "\nskdp alone, without diffprivlib: python -m benchmarks"
            )
    problem = reuse_problem(probe(python), checkout)
    if problem is not None:
        raise EnvError(f"{env_dir} is still not usable after pip: {problem}")
    return python
