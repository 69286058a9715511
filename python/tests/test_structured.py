"""Structured (AoS) elements declared in Rust (cnda.Cell2D, cnda.Particle) against NumPy
structured dtypes: strict field-level validation, zero-copy sharing both ways, field views,
struct-of-arrays conversion, lifetimes."""

import gc

import numpy as np
import pytest

import cnda

CELL = np.dtype([("rho", "<f8"), ("vx", "<f4"), ("vy", "<f4"), ("flag", "<i4"), ("material", "<i4")])


def cells(shape):
    x = np.zeros(shape, CELL)
    x["rho"] = np.arange(x.size).reshape(shape)
    x["flag"] = 1
    return x


def test_element_types_describe_the_rust_layout():
    assert cnda.Cell2D.name == "Cell2D" and cnda.Cell2D.itemsize == 24
    assert cnda.Cell2D.fields == ("rho", "vx", "vy", "flag", "material")
    assert cnda.Cell2D.dtype == CELL
    assert cnda.Particle.dtype.itemsize == 64 and cnda.Particle.dtype["id"] == np.int64
    assert "flag: int32 @ 16" in repr(cnda.Cell2D)


def test_from_numpy_shares_structured_memory_both_ways():
    gc.collect()
    live = cnda._live_buffers()
    x = cells((3, 4))
    a = cnda.from_numpy(x, element=cnda.Cell2D)
    assert isinstance(a, cnda.StructuredND) and a.shape == (3, 4) and a.data_ptr == x.ctypes.data
    v = a.to_numpy()
    assert v.dtype == CELL and v.ctypes.data == x.ctypes.data
    v[1, 2]["vx"] = 2.5
    assert x[1, 2]["vx"] == 2.5
    rho = a.field("rho")  # a strided view of one field, same memory
    assert rho.strides == (96, 24) and rho.ctypes.data == x.ctypes.data
    rho[2, 3] = -1.0
    assert x["rho"][2, 3] == -1.0
    del x, v, rho
    gc.collect()
    assert a.field("rho")[2, 3] == -1.0  # a keeps NumPy's memory alive
    assert cnda._live_buffers() == live


def test_owned_structured_arrays_live_as_long_as_their_views():
    gc.collect()
    live = cnda._live_buffers()
    a = cnda.Particle.zeros((5,))
    assert cnda._live_buffers() == live + 1
    v = a.to_numpy()
    assert v.ctypes.data == a.data_ptr and v.ctypes.data % 64 == 0
    v["id"] = np.arange(5)
    del a
    gc.collect()
    assert list(v["id"]) == [0, 1, 2, 3, 4]
    del v
    gc.collect()
    assert cnda._live_buffers() == live


def swapped_names():
    return np.dtype([("rho", "<f8"), ("vx", "<f4"), ("vy", "<f4"), ("state", "<i4"), ("material", "<i4")])


@pytest.mark.parametrize(
    "dtype,message",
    [
        (swapped_names(), "Cell2D: field 3 must be `flag`, got `state`"),
        (np.dtype([("rho", "<f8"), ("vx", "<f4"), ("vy", "<f4"), ("flag", "<i8"), ("material", "<i4")]),
         "field `flag` requires int32 \\(4 bytes\\), got int64 \\(8 bytes\\)"),
        (np.dtype([("rho", "<f8"), ("vx", "<f4"), ("vy", "<f4"), ("flag", "<i4")]), "expected 5 fields, got 4"),
        (np.dtype([("rho", ">f8"), ("vx", "<f4"), ("vy", "<f4"), ("flag", "<i4"), ("material", "<i4")]),
         "field `rho` must be Little-endian, got Big-endian"),
        (np.dtype({"names": list(CELL.names), "formats": ["<f8", "<f4", "<f4", "<i4", "<i4"],
                   "offsets": [0, 8, 12, 20, 16], "itemsize": 24}), "field `flag` must sit at byte 16, got byte 20"),
        (np.dtype({"names": list(CELL.names), "formats": ["<f8", "<f4", "<f4", "<i4", "<i4"],
                   "offsets": [0, 8, 12, 16, 20], "itemsize": 32}), "elements must be 24 bytes, got 32"),
        (np.dtype([("rho", "<f8", (2,)), ("vx", "<f4"), ("vy", "<f4"), ("flag", "<i4"), ("material", "<i4")]),
         "field `rho` is a sub-array"),
        (np.dtype("<f8"), "not a structured one"),
    ],
)
def test_from_numpy_validates_field_by_field(dtype, message):
    with pytest.raises(TypeError, match=message):
        cnda.from_numpy(np.zeros(3, dtype), element=cnda.Cell2D)
    with pytest.raises(TypeError, match=message):
        cnda.Cell2D.check(dtype)


def test_structured_layout_and_ownership_refusals():
    x = cells((4, 4))
    with pytest.raises(ValueError, match="C-contiguous"):
        cnda.Cell2D.from_numpy(x[:, ::2])
    a = cnda.Cell2D.from_numpy(x[:, ::2], copy=True)  # copies any strides
    assert np.array_equal(a.to_numpy(), x[:, ::2]) and a.data_ptr != x.ctypes.data
    raw = np.zeros(24 * 3 + 4, np.uint8)[4:].view(CELL)
    with pytest.raises(ValueError, match="8-byte aligned"):
        cnda.Cell2D.from_numpy(raw)
    ro = cells((2,))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cnda.Cell2D.from_numpy(ro)
    r = cnda.Cell2D.from_numpy(ro, readonly=True)
    assert r.readonly
    v = r.to_numpy()
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v.flags.writeable = True  # the base is read-only too
    with pytest.raises(TypeError, match="structured dtype .*element="):
        cnda.from_numpy(x)
    with pytest.raises(TypeError, match="there is no field `pressure`"):
        a.field("pressure")


def test_struct_of_arrays_round_trip():
    x = cells((2, 3))
    x["vy"] = 0.5
    a = cnda.Cell2D.from_numpy(x)
    soa = a.to_soa()
    assert list(soa) == list(CELL.names)
    assert all(col.flags.c_contiguous for col in soa.values())
    assert np.array_equal(soa["rho"], x["rho"]) and soa["vy"].dtype == np.float32
    soa["rho"][0, 0] = 9.0  # copies: the structured array is unchanged
    assert x["rho"][0, 0] == 0.0
    b = cnda.Cell2D.from_soa(soa)
    assert b.to_numpy()["rho"][0, 0] == 9.0 and np.array_equal(b.to_numpy()["flag"], x["flag"])
    with pytest.raises(TypeError, match="from_soa needs exactly the fields"):
        cnda.Cell2D.from_soa({"rho": soa["rho"]})
    soa["flag"] = soa["flag"].astype(np.int64)
    with pytest.raises(TypeError, match="field `flag` must be an array of int32"):
        cnda.Cell2D.from_soa(soa)
    c = b.copy()
    assert c.data_ptr != b.data_ptr and np.array_equal(c.to_numpy(), b.to_numpy())
