//! The examples' pictures: a 2D field as an 8-bit RGB PNG, one pixel per point, coloured by the
//! example's own map.

use cnda::prelude::*;

/// `a` as a PNG at `path`, row 0 at the top, each point coloured by `colour`.
pub fn write_png<T: cnda::Pod>(
    path: &str,
    a: &Array<T, 2>,
    colour: impl Fn(T) -> [u8; 3],
) -> Result<(), Box<dyn std::error::Error>> {
    let [n, m] = a.shape();
    let pixels: Vec<u8> = a.iter().flat_map(|&x| colour(x)).collect();
    let file = std::fs::File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), m as u32, n as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&pixels)?;
    Ok(())
}
