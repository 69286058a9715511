//! Procedural macros of cnda (re-exported by it): `stencil!`.
