"""executor="ray": a Ray head on 127.0.0.1 with two worker slots, started here (and
stopped by its process id); the sweep on it equals the local sweep exactly."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import schedlab

# Keep Ray on the loopback: without this it swaps 127.0.0.1 for the host's own address.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray")

BASE = dict(machine="smp:2", workloads=["hackbench -g 1 -l 30"], settings={"noise": {"work_jitter_pct": 2}})
GRID = {"features": ["", "NO_DELAY_DEQUEUE"], "hz": [250, 1000]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head():
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="sl-ray-")
    exe = Path(sys.executable).with_name("ray")
    head = subprocess.Popen(
        [str(exe), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
         "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={tmp}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    address = f"127.0.0.1:{port}"
    deadline = time.time() + 120
    while True:
        try:
            ray.init(address=address, log_to_driver=False, _node_ip_address="127.0.0.1")
            break
        except Exception:
            if time.time() > deadline or head.poll() is not None:
                os.killpg(head.pid, signal.SIGTERM)
                pytest.fail(f"no Ray head at {address}")
            time.sleep(2)
    yield address
    ray.shutdown()
    os.killpg(head.pid, signal.SIGTERM)
    try:
        head.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(head.pid, signal.SIGKILL)
    shutil.rmtree(tmp, ignore_errors=True)


def test_ray_sweep_equals_local(ray_head):
    assert ray.cluster_resources().get("CPU") == 2
    assert all(n["NodeManagerAddress"] == "127.0.0.1" for n in ray.nodes())
    local = schedlab.sweep(GRID, seeds=2, metrics=["perf.*"], **BASE)
    on_ray = schedlab.sweep(GRID, seeds=2, metrics=["perf.*"], executor="ray", **BASE)
    assert on_ray == local
    assert on_ray.table.equals(local.table)
    assert on_ray.runs.equals(local.runs)
    print("ray == local:", on_ray.table.to_dict("records")[0])


def test_ray_errors_are_schedlab_errors(ray_head):
    with pytest.raises(schedlab.SchedlabError, match="bogus"):
        schedlab.sweep({"machine": ["bogus"]}, seeds=1, executor="ray", **BASE)
