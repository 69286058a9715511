// matmul on WebGPU: out (m x n, dense row-major) = a (m x k) * b (k x n), `a` and `b` strided
// (descriptors 1 and 2: a transposed view is read in place), tiled through workgroup memory in
// 16 x 16 tiles. Scalar words (after three descriptors): m, n, k. Complex elements multiply in
// num-complex's operation order.

@group(0) @binding(0) var<storage, read_write> out: array<ELEM>;
@group(0) @binding(1) var<storage, read> a: array<ELEM>;
@group(0) @binding(2) var<storage, read> b: array<ELEM>;

//@real
fn mul_add(acc: ELEM, x: ELEM, y: ELEM) -> ELEM { return acc + x * y; }
//@end
//@complex
fn mul_add(acc: ELEM, x: ELEM, y: ELEM) -> ELEM { return acc + ELEM(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x); }
//@end

const TILE: u32 = 16u;
var<workgroup> tile_a: array<array<ELEM, 16>, 16>;
var<workgroup> tile_b: array<array<ELEM, 16>, 16>;

@compute @workgroup_size(16, 16)
fn matmul(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let m = u32(params[scalar_word(3u, 0u)]);
    let n = u32(params[scalar_word(3u, 1u)]);
    let k = u32(params[scalar_word(3u, 2u)]);
    let row = wid.y * TILE + lid.y;
    let col = wid.x * TILE + lid.x;
    var acc = ELEM(0);
    for (var t = 0u; t < k; t = t + TILE) {
        // Load one tile of each operand (zeros past the edges).
        var va = ELEM(0);
        if (row < m && t + lid.x < k) { va = a[at2d(1u, row, t + lid.x)]; }
        tile_a[lid.y][lid.x] = va;
        var vb = ELEM(0);
        if (t + lid.y < k && col < n) { vb = b[at2d(2u, t + lid.y, col)]; }
        tile_b[lid.y][lid.x] = vb;
        workgroupBarrier();
        for (var p = 0u; p < TILE; p = p + 1u) {
            acc = mul_add(acc, tile_a[lid.y][p], tile_b[p][lid.x]);
        }
        workgroupBarrier();
    }
    if (row < m && col < n) {
        out[at2d(0u, row, col)] = acc;
    }
}
