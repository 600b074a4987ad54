"""A throwaway PostgreSQL cluster for the user-study tests.

Why a real server and not a mock: what the store promises on PostgreSQL -- two server
processes never hand out one participant index nor store one page twice, a committed page
survives the xaip process dying -- is about the database's locks and commits, which only a
real server has. The cluster lives in a fresh directory under the system's temporary
directory (PostgreSQL refuses to run as root, so under root it runs as the ``postgres``
user, who must be able to reach its directory: pytest's own ``tmp_path`` is private to
root), listens on a free loopback port with password authentication, and is stopped and
deleted at the end of the session. Where PostgreSQL or psycopg is absent the tests that
need it are skipped with the reason.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

USER = "xaip"
PASSWORD = "study-test-password"


def binaries() -> Path | None:
    """The newest installed PostgreSQL's ``bin`` directory (Debian's layout, then PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def why_not() -> str | None:
    """Why the PostgreSQL tests cannot run here, or ``None`` when they can."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'xaip[study]')"
    if binaries() is None:
        return "PostgreSQL is not installed (apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a 'postgres' user to run the server as"
        if shutil.which("runuser") is None:
            return "running as root without runuser"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Cluster:
    """A running PostgreSQL server in ``folder``."""

    folder: Path
    port: int
    bin: Path

    def _as_owner(self, *command: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run([*prefix, *command], capture_output=True, text=True,
                              check=False, timeout=120)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database's URL (each test its own)."""
        import psycopg

        name = "study_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def start(self) -> None:
        done = self._as_owner(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-t",
                              "60", "-l", str(self.folder / "server.log"), "-o",
                              f"-p {self.port} -c listen_addresses=127.0.0.1 "
                              "-c unix_socket_directories='' -c max_connections=60",
                              "start")
        if done.returncode != 0:
            log = (self.folder / "server.log")
            tail = log.read_text()[-600:] if log.exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()} {tail}")

    def stop(self) -> None:
        self._as_owner(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                       "-w", "stop")


def start_cluster() -> Cluster:
    """initdb + pg_ctl start in a new directory (see the module docstring)."""
    bin_dir = binaries()
    assert bin_dir is not None
    folder = Path(tempfile.mkdtemp(prefix="xaip-pg-"))
    folder.chmod(0o755)
    password = folder / "password"
    password.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(password, "postgres", "postgres")
    cluster = Cluster(folder, _free_port(), bin_dir)
    done = cluster._as_owner(str(bin_dir / "initdb"), "-D", str(cluster.data), "-U", USER,
                             f"--pwfile={password}", "--auth=scram-sha-256", "--no-sync",
                             "-E", "UTF8", "--locale=C")
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {done.stderr.strip()[-600:]}")
    for attempt in range(3):
        try:
            cluster.start()
            break
        except RuntimeError:
            if attempt == 2:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            cluster.port = _free_port()  # the port was taken meanwhile
            time.sleep(0.5)
    return cluster


def remove_cluster(cluster: Cluster) -> None:
    cluster.stop()
    shutil.rmtree(cluster.folder, ignore_errors=True)


__all__ = ["Cluster", "binaries", "remove_cluster", "start_cluster", "why_not"]
