//! The row function in cranelift's IR (`emit.rs` spells each node), compiled in-process in about
//! a millisecond: the engine where no C compiler is at hand (`CNDA_JIT=cranelift` asks for it
//! alone). Its x86 backend has 128-bit vectors only.

use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlags, Signature};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use super::emit::{self, Calls, Elem, Frame};
use super::{functions, RowFn};
use crate::kernel::expr::{ExprData, Node};

/// `s` in every lane of a vector: a number as itself, a condition (`0` or `1` in an `i8`) as a
/// lane mask of all ones or all zeros.
fn splat(
    b: &mut FunctionBuilder,
    elem: Elem,
    s: cranelift_codegen::ir::Value,
    condition: bool,
) -> cranelift_codegen::ir::Value {
    if condition {
        let all = b.ins().ineg(s);
        let wide = b.ins().sextend(elem.int_scalar, all);
        b.ins().splat(elem.int_vector, wide)
    } else {
        b.ins().splat(elem.vector, s)
    }
}

/// Compiles the row function (with the module holding its code), or `None` where cranelift cannot (no backend for this host) or a
/// tap's offset does not fit the instructions' 32-bit displacement.
pub(super) fn compile<const N: usize>(
    data: &ExprData<N>,
    deltas: &[isize],
    elem: Elem,
) -> Option<(RowFn, Box<JITModule>)> {
    let tap_bytes: Vec<i32> = deltas
        .iter()
        .map(|&d| d.checked_mul(elem.size as isize).and_then(|b| i32::try_from(b).ok()))
        .collect::<Option<_>>()?;
    // Room for the unrolled vectors' displacements too.
    let unrolled = i32::try_from((emit::UNROLL - 1) * elem.lanes * elem.size).ok()?;
    tap_bytes.iter().try_for_each(|b| b.checked_add(unrolled).map(drop))?;
    let powers = data.expr().nodes().iter().filter_map(|node| match node {
        Node::Powi(_, n) => Some(n.unsigned_abs()),
        _ => None,
    });
    if powers.max().unwrap_or(0) > emit::MAX_POWI {
        return None;
    }
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").ok()?;
    let isa = cranelift_native::builder().ok()?.finish(settings::Flags::new(flags)).ok()?;
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    for (name, address) in functions() {
        builder.symbol(name, address);
    }
    let mut module = JITModule::new(builder);
    let pointer = module.target_config().pointer_type();
    let mut ctx = module.make_context();
    for _ in 0..4 {
        ctx.func.signature.params.push(AbiParam::new(pointer));
    }
    let suffix = if elem.size == 4 { "f32" } else { "f64" };
    let mut unary = Signature::new(module.target_config().default_call_conv);
    unary.params.push(AbiParam::new(elem.scalar));
    unary.returns.push(AbiParam::new(elem.scalar));
    let mut declare =
        |name: &str| module.declare_function(&format!("cnda_{name}_{suffix}"), Linkage::Import, &unary).ok();
    let ids = [declare("exp")?, declare("ln")?, declare("sin")?, declare("cos")?, declare("tanh")?];
    let mut context = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut context);
        let refs = ids.map(|id| module.declare_func_in_func(id, b.func));
        let calls = Calls { exp: refs[0], ln: refs[1], sin: refs[2], cos: refs[3], tanh: refs[4] };
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let [fields_at, outputs_at, params_at, n] = <[_; 4]>::try_from(b.block_params(entry)).ok()?;
        let mut load = MemFlags::new();
        load.set_notrap();
        let expr = data.expr();
        let fields = (0..expr.fields()).map(|f| b.ins().load(pointer, load, fields_at, 8 * f as i32)).collect();
        let outputs = (0..expr.outputs()).map(|m| b.ins().load(pointer, load, outputs_at, 8 * m as i32)).collect();
        // The nodes of parameters and literals only, computed once.
        let mut constants: Vec<Option<(cranelift_codegen::ir::Value, cranelift_codegen::ir::Value)>> = Vec::new();
        for node in expr.nodes() {
            let scalar = match *node {
                Node::Tap(_) => None,
                Node::Param(p) => Some(b.ins().load(elem.scalar, load, params_at, (p as i64 * elem.size) as i32)),
                Node::Lit(lit) => Some(if elem.size == 4 {
                    b.ins().f32const(cranelift_codegen::ir::immediates::Ieee32::with_bits(lit.f32.to_bits()))
                } else {
                    b.ins().f64const(cranelift_codegen::ir::immediates::Ieee64::with_bits(lit.f64.to_bits()))
                }),
                _ => {
                    let operands: Option<Vec<_>> = node.operands().map(|a| constants[a].map(|(s, _)| s)).collect();
                    operands.map(|operands| emit::operation(&mut b, node, &operands, false, elem, &calls))
                }
            };
            let condition = expr.is_condition(constants.len());
            constants.push(scalar.map(|s| (s, splat(&mut b, elem, s, condition))));
        }
        let frame = Frame { expr, fields, outputs, tap_bytes, constants, elem, calls: &calls };
        emit::loops(&mut b, &frame, n);
        b.seal_all_blocks();
        b.finalize();
    }
    let id = module.declare_function("cnda_row", Linkage::Local, &ctx.func.signature).ok()?;
    module.define_function(id, &mut ctx).ok()?;
    module.clear_context(&mut ctx);
    module.finalize_definitions().ok()?;
    let code = module.get_finalized_function(id);
    // SAFETY: `code` is the finalized function of the signature built above: four pointer-sized
    // arguments in the platform's default C convention, returning nothing. It stays mapped as
    // long as the module, which the cache keeps for the process.
    let row = unsafe { core::mem::transmute::<*const u8, RowFn>(code) };
    Some((row, Box::new(module)))
}
