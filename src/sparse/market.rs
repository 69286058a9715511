//! Matrix Market files (NIST's exchange format, SciPy's `mmread`/`mmwrite`): sparse matrices in
//! coordinate form, read as `real`, `integer` or `pattern` fields with `general`, `symmetric`
//! or `skew-symmetric` storage, written as `real general` with every value exact.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use super::csr::CsrMatrix;
use crate::element::Float;
use crate::error::{or_panic, Error, Result};

const READ: &str = "CsrMatrix::read_matrix_market";
const WRITE: &str = "CsrMatrix::write_matrix_market";

fn format_error(line: usize, reason: impl core::fmt::Display) -> Error {
    Error::Io { op: READ, reason: format!("Matrix Market line {line}: {reason}") }
}

/// How the file stores the matrix's entries.
#[derive(Clone, Copy, PartialEq)]
enum Symmetry {
    General,
    Symmetric,
    SkewSymmetric,
}

impl<T: Float> CsrMatrix<T> {
    /// The matrix in the Matrix Market file at `path`.
    ///
    /// # Panics
    ///
    /// As [`CsrMatrix::try_read_matrix_market`] errs.
    #[track_caller]
    pub fn read_matrix_market(path: impl AsRef<Path>) -> Self {
        or_panic(Self::try_read_matrix_market(path))
    }

    /// [`CsrMatrix::read_matrix_market`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Io` when the file cannot be read or is not a coordinate Matrix Market matrix
    /// (the line and what is wrong); `Error::UnsupportedDType` for `complex` fields; as
    /// [`CsrMatrix::try_from_triplets`].
    pub fn try_read_matrix_market(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let file = std::fs::File::open(path)
            .map_err(|e| Error::Io { op: READ, reason: format!("{}: {e}", path.display()) })?;
        Self::try_read_matrix_market_from(BufReader::new(file))
    }

    /// The matrix in Matrix Market text read from `reader`.
    ///
    /// ```
    /// use cnda::sparse::CsrMatrix;
    /// let text = "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n2 2 2\n1 1 4.0\n2 1 -1\n";
    /// let a = CsrMatrix::<f64>::try_read_matrix_market_from(text.as_bytes()).unwrap();
    /// assert_eq!(a.try_to_dense().unwrap().as_slice(), &[4.0, -1.0, -1.0, 0.0]);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`CsrMatrix::try_read_matrix_market`].
    pub fn try_read_matrix_market_from(reader: impl BufRead) -> Result<Self> {
        let mut lines = reader.lines().enumerate().map(|(i, l)| {
            l.map(|l| (i + 1, l)).map_err(|e| Error::Io { op: READ, reason: format!("line {}: {e}", i + 1) })
        });
        let (_, banner) = lines.next().transpose()?.ok_or_else(|| format_error(1, "the file is empty"))?;
        let (pattern, symmetry) = banner_kind(&banner)?;
        // The size line: the first that is neither a comment nor blank.
        let mut last = 1;
        let (size_line, size) = loop {
            let (number, line) =
                lines.next().transpose()?.ok_or_else(|| format_error(last + 1, "no size line before the end"))?;
            last = number;
            let line = line.trim().to_owned();
            if !line.is_empty() && !line.starts_with('%') {
                break (number, line);
            }
        };
        let numbers: Vec<usize> = size
            .split_whitespace()
            .map(|w| w.parse().map_err(|e| format_error(size_line, format!("size {w:?}: {e}"))))
            .collect::<Result<_>>()?;
        let [rows, cols, entries] = numbers[..] else {
            return Err(format_error(size_line, format!("the size line {size:?} needs rows, columns and entries")));
        };
        if symmetry != Symmetry::General && rows != cols {
            return Err(format_error(size_line, format!("a {rows} x {cols} matrix cannot be stored symmetric")));
        }
        let mut triplets = Vec::new();
        triplets.try_reserve(entries.min(1 << 24)).map_err(|_| Error::Alloc {
            op: READ,
            bytes: entries.min(1 << 24).saturating_mul(24),
            reason: "the system allocator refused".into(),
        })?;
        let mut read = 0;
        for line in lines {
            let (number, line) = line?;
            let line = line.trim();
            if line.is_empty() || line.starts_with('%') {
                continue;
            }
            if read == entries {
                return Err(format_error(number, format!("more entries than the {entries} the size line gives")));
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let want = if pattern { 2 } else { 3 };
            if words.len() != want {
                return Err(format_error(number, format!("{line:?} is not an entry of {want} numbers")));
            }
            let index = |w: &str, n: usize| -> Result<usize> {
                let i: usize = w.parse().map_err(|e| format_error(number, format!("index {w:?}: {e}")))?;
                if i == 0 || i > n {
                    return Err(format_error(number, format!("index {i} outside 1..={n} (indices count from 1)")));
                }
                Ok(i - 1)
            };
            let (r, c) = (index(words[0], rows)?, index(words[1], cols)?);
            let v = if pattern {
                1.0
            } else {
                words[2].parse::<f64>().map_err(|e| format_error(number, format!("value {:?}: {e}", words[2])))?
            };
            triplets.push((r, c, T::from_f64(v)));
            if r != c {
                match symmetry {
                    Symmetry::General => {}
                    Symmetry::Symmetric => triplets.push((c, r, T::from_f64(v))),
                    Symmetry::SkewSymmetric => triplets.push((c, r, T::from_f64(-v))),
                }
            } else if symmetry == Symmetry::SkewSymmetric && v != 0.0 {
                return Err(format_error(number, "a skew-symmetric matrix has a zero diagonal"));
            }
            read += 1;
        }
        if read != entries {
            return Err(format_error(size_line, format!("{read} entries follow, the size line gives {entries}")));
        }
        Self::try_from_triplets([rows, cols], &triplets)
    }

    /// Writes this matrix to `path` as a Matrix Market `coordinate real general` file, each
    /// value in the shortest decimal that reads back to the same number.
    ///
    /// # Panics
    ///
    /// As [`CsrMatrix::try_write_matrix_market`] errs.
    #[track_caller]
    pub fn write_matrix_market(&self, path: impl AsRef<Path>) {
        or_panic(self.try_write_matrix_market(path));
    }

    /// [`CsrMatrix::write_matrix_market`], returning errors.
    ///
    /// # Errors
    ///
    /// `Error::Io` when the file cannot be written.
    pub fn try_write_matrix_market(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let io = |e: std::io::Error| Error::Io { op: WRITE, reason: format!("{}: {e}", path.display()) };
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        self.try_write_matrix_market_to(&mut out)?;
        out.flush().map_err(io)
    }

    /// The Matrix Market text of this matrix, written to `out`.
    ///
    /// # Errors
    ///
    /// `Error::Io` when `out` fails.
    pub fn try_write_matrix_market_to(&self, mut out: impl Write) -> Result<()> {
        let io = |e: std::io::Error| Error::Io { op: WRITE, reason: e.to_string() };
        let [rows, cols] = self.shape();
        writeln!(out, "%%MatrixMarket matrix coordinate real general").map_err(io)?;
        writeln!(out, "% written by cnda {}", env!("CARGO_PKG_VERSION")).map_err(io)?;
        writeln!(out, "{rows} {cols} {}", self.nnz()).map_err(io)?;
        let (offsets, columns, values) =
            (self.offsets().as_slice(), self.columns().as_slice(), self.values().as_slice());
        for r in 0..rows {
            for j in offsets[r] as usize..offsets[r + 1] as usize {
                writeln!(out, "{} {} {:?}", r + 1, columns[j] + 1, values[j]).map_err(io)?;
            }
        }
        Ok(())
    }
}

/// The banner's field (`pattern` or not) and symmetry.
fn banner_kind(banner: &str) -> Result<(bool, Symmetry)> {
    let words: Vec<String> = banner.split_whitespace().map(str::to_ascii_lowercase).collect();
    let [head, object, format, field, symmetry] = &words[..] else {
        return Err(format_error(1, format!("{banner:?} is not a Matrix Market banner")));
    };
    if head != "%%matrixmarket" || object != "matrix" {
        return Err(format_error(1, format!("{banner:?} is not a Matrix Market matrix banner")));
    }
    if format != "coordinate" {
        return Err(format_error(
            1,
            format!("the {format} format is not read (coordinate is): store the matrix sparse"),
        ));
    }
    let pattern = match field.as_str() {
        "real" | "double" | "integer" => false,
        "pattern" => true,
        other => {
            return Err(Error::UnsupportedDType {
                op: READ,
                got: format!("Matrix Market {other}"),
                fix: "real, integer and pattern fields are read",
            })
        }
    };
    let symmetry = match symmetry.as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" if !pattern => Symmetry::SkewSymmetric,
        "skew-symmetric" => return Err(format_error(1, "a pattern matrix cannot be skew-symmetric (it has no signs)")),
        other => return Err(format_error(1, format!("the {other} storage is not read"))),
    };
    Ok((pattern, symmetry))
}
