//! The structured elements this module exposes to Python: the Rust declarations are the single
//! source of truth for the layouts NumPy data is validated against. An extension module of your
//! own exposes its elements the same way (`structured::expose::<YourElement>(m)`).

cnda::structured! {
    /// A cell of a 2D finite-volume grid: density, velocity, a boundary flag and a material id.
    pub struct Cell2D (Cell2DSoa) {
        pub rho: f64,
        pub vx: f32,
        pub vy: f32,
        pub flag: i32,
        pub material: i32,
    }
}

cnda::structured! {
    /// A particle: position, velocity, mass and id.
    pub struct Particle (ParticleSoa) {
        pub x: f64,
        pub y: f64,
        pub z: f64,
        pub vx: f64,
        pub vy: f64,
        pub vz: f64,
        pub mass: f64,
        pub id: i64,
    }
}
