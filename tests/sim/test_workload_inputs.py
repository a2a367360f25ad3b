"""Bad input to the workload options, the Cplant schedulers and machines
with processors per node: one-line ValueError in Python, exit 2 and one
line on the command line."""

import shlex

import pytest

from optalloc import instance_path
from optalloc.cli import main
from optalloc.sim import Job, replicate, simulate, work_multiple

NO_USERS = "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 5 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"

CLI = [
    ("simulate {small} --machine 8x4 --work-multiple 0", "--work-multiple must be a positive finite number"),
    ("simulate {small} --machine 8x4 --work-multiple -2", "--work-multiple must be a positive finite number"),
    ("simulate {small} --machine 8x4 --work-multiple nan", "got nan"),
    ("simulate {small} --machine 8x4 --replication 0", "--replication must be an integer of at least 1"),
    ("simulate nousers.swf --machine 8x4 --scheduler cplant", "needs user ids (SWF field 12)"),
    ("simulate nousers.swf --machine 8x4 --fair-start", "needs user ids"),
    ("simulate {small} --machine '8x8 torus * -4'", "must not be negative, got -4"),
    ("simulate {small} --machine 8x4 --runtime-model fast", "time-per-distance:A"),
    ("simulate {small} --machine 8x4 --scheduler cplant-nope", "--scheduler: invalid choice"),
    ("simulate {small} --machine 2x2 --oversize error --work-multiple 2", "needs 16 processors, more than max_procs=4"),
]


@pytest.mark.parametrize("line, msg", CLI)
def test_cli_one_line_exit_2(line, msg, tmp_path, monkeypatch, capsys):
    (tmp_path / "nousers.swf").write_text("; MaxProcs: 32\n" + NO_USERS)
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(line.format(small=instance_path("small.swf")))
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert msg in lines[-1] and "Traceback" not in err
    assert len([x for x in lines if x.startswith("optalloc") or "error" in x]) == 1


def test_jobs_larger_than_the_machine_after_transforms():
    trace = replicate(work_multiple([Job(1, 0, 10, 5), Job(2, 1, 10, 1)], 2.0), 2)
    with pytest.raises(ValueError, match="job 1 needs 5 processors, the machine has 4"):
        simulate(trace, "2x2")


def test_sweep_rejects_bad_workload_axes():
    from optalloc.sim import make_sweep

    small = str(instance_path("small.swf"))
    with pytest.raises(ValueError, match="work_multiple: `work_multiple` must be a positive finite number"):
        make_sweep(traces=[small], machines=["8x4"], work_multiple=[1.0, 0.0])
    with pytest.raises(ValueError, match="replication: `replication` must be an integer"):
        make_sweep(traces=[small], machines=["8x4"], replication=[0])
    with pytest.raises(ValueError, match="schedulers\\[0\\]"):
        make_sweep(traces=[small], machines=["8x4"], schedulers=["cplant-x"])
