"""Checkpoints of distributed arrays (`DistArray::save`, Rust feature `hdf5`) read by h5py: the
field is one dataset in global index order with its step, time, halo and periodicity, equal to
the array gathered onto one process. scripts/test runs tests/mpi.rs under mpirun with 1 to 4
processes first, with CNDA_CHECKPOINT_DIR naming where they write; without it (or without h5py)
these tests skip."""

import os
import pathlib

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")
DIR = os.environ.get("CNDA_CHECKPOINT_DIR")
pytestmark = pytest.mark.skipif(DIR is None, reason="CNDA_CHECKPOINT_DIR is not set (scripts/test sets it)")


@pytest.mark.parametrize("processes", [1, 2, 3, 4])
def test_a_checkpoint_is_the_gathered_field_with_its_attributes(processes):
    path = pathlib.Path(DIR) / f"cnda-checkpoint-{processes}.h5"
    if os.environ.get("CNDA_REQUIRE_CHECKPOINTS") != "1" and not path.exists():
        pytest.skip(f"{path} was not written")
    with h5py.File(path, "r") as f, h5py.File(pathlib.Path(DIR) / f"cnda-checkpoint-{processes}-gathered.h5", "r") as g:
        field = f["field"]
        assert field.dtype == np.float64 and field.shape == (29, 23)
        assert np.array_equal(field[...], g["field"][...])
        assert field.attrs["step"] == 10 and field.attrs["time"] == 0.5
        assert list(field.attrs["halo"]) == [1, 1] and list(field.attrs["periodic"]) == [0, 0]
        # The hot top row (the fixed boundary) is where the program put it.
        assert np.array_equal(field[0], np.ones(23))
    # The same field as complex numbers (`Complex<f64>`), h5py's complex128.
    with h5py.File(pathlib.Path(DIR) / f"cnda-checkpoint-{processes}-complex.h5", "r") as c, h5py.File(
        pathlib.Path(DIR) / f"cnda-checkpoint-{processes}-gathered.h5", "r"
    ) as g:
        z, x = c["z"][...], g["field"][...]
        assert z.dtype == np.complex128
        assert np.array_equal(z, x - 2j * x)


@pytest.mark.parametrize("processes", [1, 2, 3, 4])
def test_a_state_checkpoint_holds_every_level_as_a_dataset(processes):
    path = pathlib.Path(DIR) / f"cnda-state-checkpoint-{processes}.h5"
    if os.environ.get("CNDA_REQUIRE_CHECKPOINTS") != "1" and not path.exists():
        pytest.skip(f"{path} was not written")
    with h5py.File(path, "r") as f:
        assert sorted(f.keys()) == ["field0", "field0_level1"]
        for name in f:
            field = f[name]
            assert field.dtype == np.float64 and field.shape == (19, 15)
            assert field.attrs["step"] == 5 and field.attrs["time"] == 0.25
            assert list(field.attrs["halo"]) == [4, 4] and list(field.attrs["periodic"]) == [0, 1]
        # The fixed rows (within the radius 2 of the global edges of axis 0) keep their values
        # at both levels: the level before is what the newest was one step earlier.
        assert np.array_equal(f["field0"][:2], f["field0_level1"][:2])
        assert not np.array_equal(f["field0"][2:-2], f["field0_level1"][2:-2])
