//! An expression that is data at run time rather than a type's consts (a stencil read from text,
//! `TextStencil`): checked once, with the key under which the device backends cache the code they
//! generate for it.

use super::check::CheckedExpr;

/// A [`CheckedExpr`] held as a value, with its cache key: what
/// [`ExprStencilKernels::expression_data`](crate::kernel::ExprStencilKernels::expression_data)
/// runs. The key spells the whole checked expression (its nodes, taps and values, literals to the
/// bit), so two equal expressions share their generated code and two different ones never do.
#[derive(Clone, Debug)]
pub struct ExprData<const N: usize> {
    expr: CheckedExpr<N>,
    key: String,
    id: u64,
}

impl<const N: usize> PartialEq for ExprData<N> {
    fn eq(&self, other: &Self) -> bool {
        self.expr == other.expr
    }
}

impl<const N: usize> ExprData<N> {
    /// The expression, keyed by what it is.
    pub fn new(expr: CheckedExpr<N>) -> Self {
        // `Debug` prints every part, and each float literal in its shortest exact form.
        let key = format!("data {N} {expr:?}");
        static NEXT: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);
        let id = NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        ExprData { expr, key, id }
    }

    /// The checked expression.
    pub fn expr(&self) -> &CheckedExpr<N> {
        &self.expr
    }

    /// A number no other `ExprData` of this process has (its clones share it): what the CPU's
    /// compiled code is cached by, cheaper to look up than the key.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The key of the code generated for it.
    pub fn key(&self) -> &str {
        &self.key
    }
}
