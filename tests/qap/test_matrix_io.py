"""Reading user matrices: CSV / whitespace text, .npy, MatrixMarket."""

import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse

from optalloc.qap import parse_matrix, read_matrix

W3 = np.array([[0.0, 2.0, 0.0], [2.0, 0.0, 1.5], [0.0, 1.5, 0.0]])


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text", [
    "0,2,0\n2,0,1.5\n0,1.5,0\n",
    "0 2 0\n2 0 1.5\n0 1.5 0",
    "# flows in bytes\n0\t2\t0\n\n2, 0, 1.5   # row 1\n0 ,1.5, 0,\n",
])
def test_text_forms(tmp_path, text):
    np.testing.assert_array_equal(read_matrix(write(tmp_path / "w.csv", text)), W3)
    np.testing.assert_array_equal(read_matrix(str(write(tmp_path / "w.txt", text))), W3)
    np.testing.assert_array_equal(parse_matrix(text), W3)


def test_npy(tmp_path):
    p = tmp_path / "w.npy"
    np.save(p, W3.astype(np.int64))
    out = read_matrix(p)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, W3.astype(np.int64))


def test_matrix_market_sparse_and_dense(tmp_path):
    sparse = tmp_path / "s.mtx"
    scipy.io.mmwrite(sparse, scipy.sparse.coo_matrix(W3), symmetry="symmetric")
    np.testing.assert_array_equal(read_matrix(sparse), W3)
    dense = tmp_path / "d.mtx"
    scipy.io.mmwrite(dense, W3)
    np.testing.assert_array_equal(read_matrix(dense), W3)


def test_files_are_not_modified(tmp_path):
    paths = [write(tmp_path / "w.csv", "0,1\n1,0\n"), tmp_path / "w.npy", tmp_path / "w.mtx"]
    np.save(paths[1], np.eye(2))
    scipy.io.mmwrite(paths[2], scipy.sparse.coo_matrix(np.eye(2)))
    before = [(p.read_bytes(), os.stat(p).st_mtime_ns) for p in paths]
    for p in paths:
        read_matrix(p)
    assert [(p.read_bytes(), os.stat(p).st_mtime_ns) for p in paths] == before


@pytest.mark.parametrize("text, rule", [
    ("0,1,2\n1,0,2\n", "must be a square matrix, got shape \\(2, 3\\)"),
    ("0,-1\n1,0\n", "flows must be non-negative"),
    ("0,nan\n1,0\n", "NaN or infinite"),
    ("0,inf\n1,0\n", "NaN or infinite"),
    ("0,1\n1\n", "line 2: 1 entries, expected 2"),
    ("0,x\n1,0\n", "line 1: 'x' is not a number"),
    ("# only a comment\n", "no matrix rows"),
])
def test_text_rejects(tmp_path, text, rule):
    p = write(tmp_path / "bad.csv", text)
    with pytest.raises(ValueError, match=rule) as info:
        read_matrix(p)
    assert str(p) in str(info.value) and "\n" not in str(info.value)


def test_binary_rejects(tmp_path):
    neg = tmp_path / "neg.npy"
    np.save(neg, -np.eye(2))
    with pytest.raises(ValueError, match="neg.npy: `W` flows must be non-negative"):
        read_matrix(neg)
    rect = tmp_path / "rect.npy"
    np.save(rect, np.ones((2, 3)))
    with pytest.raises(ValueError, match="must be a square matrix"):
        read_matrix(rect)
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([[None]], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="cannot read .npy file"):
        read_matrix(obj)
    cplx = tmp_path / "c.mtx"
    scipy.io.mmwrite(cplx, np.array([[0, 1j], [1j, 0]]))
    with pytest.raises(ValueError, match="complex entries"):
        read_matrix(cplx)
    junk = write(tmp_path / "junk.mtx", "not a matrix market file\n")
    with pytest.raises(ValueError, match="cannot read MatrixMarket file"):
        read_matrix(junk)


@pytest.mark.parametrize("name", ["missing.csv", "missing.npy", "missing.mtx"])
def test_missing_file(tmp_path, name):
    with pytest.raises(ValueError, match="no such file"):
        read_matrix(tmp_path / name)


def test_directory_and_empty(tmp_path):
    with pytest.raises(ValueError, match="is a directory"):
        read_matrix(tmp_path)
    d = tmp_path / "d.npy"
    d.mkdir()
    with pytest.raises(ValueError, match="is a directory"):
        read_matrix(d)
    with pytest.raises(ValueError, match="file is empty"):
        read_matrix(write(tmp_path / "e.csv", ""))
