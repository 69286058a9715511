//! `.npy` reading and writing (feature `npy`): round trips of every scalar type and of structured
//! elements, any view layout, Fortran-ordered files, and strict refusals (element type, rank,
//! byte order, truncated data, absurd shapes, arbitrary bytes) as errors, never panics or aborts.
//! NumPy's side of the format is checked by python/tests/test_npy.py.
#![cfg(feature = "npy")]

use cnda::interop::npy::{self, NpyLayout};
use cnda::prelude::*;
use cnda::structured::ByteOrder;
use cnda::{DType, Error};
use proptest::prelude::*;

cnda::structured! {
    #[derive(Debug, PartialEq)]
    pub struct Cell (CellSoa) {
        pub rho: f64,
        pub vx: f32,
        pub flag: i32,
    }
}

fn round_trip<T: npy::NpyElement + PartialEq + core::fmt::Debug, const N: usize>(a: ArrayView<'_, T, N>) {
    let mut file = Vec::new();
    npy::write(&mut file, a).unwrap();
    let b: Array<T, N> = npy::read(file.as_slice()).unwrap();
    assert_eq!(b.shape(), a.shape());
    assert!(b.iter().zip(a.iter()).all(|(x, y)| x == y));
}

#[test]
fn every_scalar_type_round_trips() {
    round_trip(Array::from_fn([3, 4], |[i, j]| (i * 4 + j) as i8).view().into());
    round_trip(Array::from_fn([5], |[i]| i as u16 * 1000).view().into());
    round_trip(Array::from_fn([2, 2, 2], |[i, j, k]| -((i + j + k) as i32)).view().into());
    round_trip(Array::from_fn([7], |[i]| i as u64 * 1_000_000_007).view().into());
    round_trip(Array::from_fn([3, 3], |[i, j]| i as f32 / (j as f32 + 1.0)).t().into());
    round_trip(Array::from_fn([4, 5], |[i, j]| (i as f64).sin() + j as f64).flip(1));
    round_trip(Array::from_fn([6], |[i]| half::f16::from_f32(i as f32 * 0.5)).view().into());
    round_trip(Array::<f64, 2>::zeros([0, 3]).view().into());
}

#[test]
fn structured_elements_round_trip_field_by_field() {
    let a = Array::from_fn([2, 3], |[i, j]| Cell { rho: (i * 3 + j) as f64, vx: 0.5, flag: j as i32 });
    let mut file = Vec::new();
    npy::write(&mut file, a.view()).unwrap();
    let header = npy::read_header(&mut file.as_slice()).unwrap();
    let NpyLayout::Structured { fields, itemsize } = &header.layout else { panic!("{header:?}") };
    assert_eq!((fields.len(), *itemsize, fields[2].name.as_str(), fields[2].offset), (3, 16, "flag", 12));
    let b: Array<Cell, 2> = npy::read(file.as_slice()).unwrap();
    assert_eq!(b, a);
    // The same bytes read as another element fail field by field.
    cnda::structured! {
        #[derive(Debug)]
        pub struct Other (OtherSoa) { pub rho: f64, pub vx: f32, pub state: i32 }
    }
    let e = npy::read::<Other, 2>(file.as_slice()).unwrap_err();
    assert!(e.to_string().contains("field 2 must be `state`, got `flag`"), "{e}");
    assert!(matches!(npy::read::<f64, 2>(file.as_slice()), Err(Error::UnsupportedDType { .. })));
}

/// A `.npy` stream with the given header dictionary and data.
fn handmade(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut header = dict.to_string();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn fortran_ordered_files_are_transposed_into_row_major() {
    // The 2 x 3 array [[0, 1, 2], [3, 4, 5]] stored column-major: 0 3 1 4 2 5.
    let data: Vec<u8> = [0i32, 3, 1, 4, 2, 5].iter().flat_map(|x| x.to_le_bytes()).collect();
    let file = handmade("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", &data);
    let a: Array<i32, 2> = npy::read(file.as_slice()).unwrap();
    assert_eq!(a.as_slice(), &[0, 1, 2, 3, 4, 5]);
    let data: Vec<u8> = (0..24i64).flat_map(|x| x.to_le_bytes()).collect();
    let file = handmade("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3, 4), }", &data);
    let a: Array<i64, 3> = npy::read(file.as_slice()).unwrap();
    assert!(a.indexed_iter().all(|([i, j, k], &x)| x == (i + 2 * j + 6 * k) as i64));
}

#[test]
fn refusals_are_typed_errors() {
    let one = handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", &[0; 16]);
    assert_eq!(
        npy::read::<f32, 1>(one.as_slice()).unwrap_err(),
        Error::DType { op: "npy::read", expected: DType::F32, got: DType::F64 }
    );
    assert!(npy::read::<f64, 2>(one.as_slice()).unwrap_err().to_string().contains("1 dimensions (shape [2]), not 2"));
    let short = handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", &[0; 16]);
    let msg = npy::read::<f64, 1>(short.as_slice()).unwrap_err().to_string();
    assert!(msg.contains("24 bytes of data, but the data ends after 16 bytes"), "{msg}");
    let big_endian = handmade("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", &[0; 16]);
    assert!(npy::read::<f64, 1>(big_endian.as_slice()).unwrap_err().to_string().contains("Big-endian"));
    let huge = handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }", &[]);
    assert!(matches!(npy::read::<f64, 1>(huge.as_slice()), Err(Error::Overflow { .. })));
    let vast = handmade("{'descr': '<u1', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", &[]);
    // An error either way: npyz's own product overflows (debug builds) or cnda's checked one does.
    assert!(matches!(npy::read::<u8, 2>(vast.as_slice()), Err(Error::Overflow { .. } | Error::Io { .. })));
    let complex = handmade("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", &[0; 16]);
    assert_eq!(
        npy::read::<f64, 1>(complex.as_slice()).unwrap_err(),
        Error::DType { op: "npy::read", expected: DType::F64, got: DType::C128 }
    );
    let quad = handmade("{'descr': '<c32', 'fortran_order': False, 'shape': (1,), }", &[0; 32]);
    assert!(matches!(npy::read::<f64, 1>(quad.as_slice()), Err(Error::UnsupportedDType { .. })));
    let objects = handmade("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", &[0; 8]);
    assert!(npy::read::<u64, 1>(objects.as_slice()).is_err());
    assert!(matches!(npy::read::<f64, 1>(&b"not a numpy file"[..]), Err(Error::Io { .. })));
}

#[test]
fn byte_order_of_single_bytes_is_irrelevant_and_headers_say_native() {
    let a = Array::from_fn([3], |[i]| i as u8);
    let mut file = Vec::new();
    npy::write(&mut file, a.view()).unwrap();
    let header = npy::read_header(&mut file.as_slice()).unwrap();
    assert_eq!(header.layout, NpyLayout::Scalar { dtype: DType::U8, byte_order: ByteOrder::NATIVE });
    assert!(!header.fortran_order);
}

#[test]
fn files_on_disk() {
    let dir = std::env::temp_dir().join(format!("cnda-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.npy");
    let a = Array::from_fn([4, 4], |[i, j]| (i * 4 + j) as f64);
    npy::save(&path, a.view()).unwrap();
    assert_eq!(npy::load::<f64, 2>(&path).unwrap(), a);
    assert!(matches!(npy::load::<f64, 2>(dir.join("missing.npy")), Err(Error::Io { .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes after a valid magic string: an error or an array, never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut file = b"\x93NUMPY\x01\x00".to_vec();
        file.extend_from_slice(&tail);
        let _ = npy::read::<f32, 2>(file.as_slice());
        let _ = npy::read::<Cell, 1>(file.as_slice());
    }

    /// Random shapes survive a round trip, whatever the rank's layout.
    #[test]
    fn random_arrays_round_trip(rows in 0usize..9, cols in 0usize..9, flip in any::<bool>()) {
        let a = Array::from_fn([rows, cols], |[i, j]| (i * 31 + j * 7) as i64 - 40);
        let v: ArrayView<i64, 2> = if flip { a.flip(0) } else { a.t().into() };
        round_trip(v);
    }
}

/// A reader that records the largest buffer it was asked to fill: the size of the allocation the
/// reader fills into.
struct Watched<'a> {
    data: &'a [u8],
    largest_request: usize,
}

impl std::io::Read for Watched<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.largest_request = self.largest_request.max(buf.len());
        self.data.read(buf)
    }
}

#[test]
fn a_lying_header_costs_the_bytes_read_not_the_bytes_announced() {
    // Soundness II, item 6. Before: the reader zero-filled the size the header announced (here
    // 8 GiB) before reading a byte, so a 136-byte file raised peak memory by the announcement.
    let file = handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824,), }", &[0; 64]);
    let mut watched = Watched { data: &file, largest_request: 0 };
    let err = npy::read::<f64, 1>(&mut watched).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Io { .. }), "{err:?}");
    assert!(msg.contains("8589934592 bytes of data, but the data ends after 64 bytes"), "{msg}");
    assert!(watched.largest_request <= npy::CHUNK_BYTES, "asked to fill {} bytes", watched.largest_request);
}

#[test]
fn data_larger_than_one_chunk_is_read_whole() {
    // Growth by doubling past the first chunk keeps every element, in order.
    let len = npy::CHUNK_BYTES / 8 * 2 + 3;
    let a = Array::from_fn([len], |[i]| i as f64);
    let mut bytes = Vec::new();
    npy::write(&mut bytes, a.view()).unwrap();
    let mut watched = Watched { data: &bytes, largest_request: 0 };
    assert_eq!(npy::read::<f64, 1>(&mut watched).unwrap(), a);
}

#[test]
fn files_shorter_than_their_header_are_refused_before_allocating() {
    let dir = std::env::temp_dir().join(format!("cnda-npy-short-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("short.npy");
    std::fs::write(&path, handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824,), }", &[0; 8]))
        .unwrap();
    let msg = npy::load::<f64, 1>(&path).unwrap_err().to_string();
    assert!(msg.contains("but the file holds only 8 bytes"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_shape_with_a_huge_axis_is_an_overflow_error() {
    // Soundness II, item 2: `(0, 2**62)` has no elements, but its other axis spans more than
    // isize::MAX bytes; NumPy refuses such shapes and so does cnda (before: accepted, and turning
    // the result into a NumPy or ndarray view was undefined behaviour).
    let file = handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904), }", &[]);
    assert!(matches!(npy::read::<f64, 2>(file.as_slice()), Err(Error::Overflow { .. })));
}
