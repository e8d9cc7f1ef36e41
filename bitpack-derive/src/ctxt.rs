//! Error collection for the derives (serde's `Ctxt`).
//!
//! Parsing and checking report every problem into one [`Ctxt`] instead of
//! returning at the first, so one compile shows every mistake, each spanned
//! on the token that caused it. [`Ctxt::check`] hands the errors back as one
//! `syn::Error`; a `Ctxt` dropped without being checked panics, so no error
//! can be collected and then lost.

use proc_macro2::Span;
use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Collects the errors of one derive invocation.
///
/// Consume it with [`Ctxt::check`]: dropping a `Ctxt` that was never checked
/// panics ("forgot to check for errors").
pub struct Ctxt {
    /// The errors so far, in the order reported; `None` once checked.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// A context with no errors, to be consumed by [`Ctxt::check`].
    pub fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// An error spanning the tokens of `obj`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, obj: T, msg: M) {
        self.push(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// An error at `span`.
    pub fn error_at<M: Display>(&self, span: Span, msg: M) {
        self.push(syn::Error::new(span, msg));
    }

    /// An error from the parser.
    pub fn syn_error(&self, err: syn::Error) {
        self.push(err);
    }

    fn push(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("a `Ctxt` takes no errors after `check`")
            .push(err);
    }

    /// `Ok` if no error was reported; otherwise every error reported, in
    /// order, combined into one `syn::Error` (which iterates over them and
    /// emits one `compile_error!` per error).
    pub fn check(self) -> syn::Result<()> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("a `Ctxt` is checked once");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for err in errors {
            combined.combine(err);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_errors_check_ok() {
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    fn check_combines_every_error_in_order() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "first");
        cx.error_spanned_by(quote::quote!(a b), "second");
        cx.syn_error(syn::Error::new(Span::call_site(), "third"));
        let err = cx.check().unwrap_err();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages, ["first", "second", "third"]);
    }

    #[test]
    fn combined_errors_emit_one_compile_error_each() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "one");
        cx.error_at(Span::call_site(), "two");
        let tokens = cx.check().unwrap_err().to_compile_error().to_string();
        assert_eq!(tokens.matches("compile_error").count(), 2, "{tokens}");
        let one = tokens.find("\"one\"").expect("the first message");
        let two = tokens.find("\"two\"").expect("the second message");
        assert!(one < two, "{tokens}");
    }

    #[test]
    #[should_panic(expected = "forgot to check for errors")]
    fn dropping_an_unchecked_ctxt_panics() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "lost");
        drop(cx);
    }

    #[test]
    #[should_panic(expected = "forgot to check for errors")]
    fn dropping_an_unchecked_ctxt_panics_even_without_errors() {
        drop(Ctxt::new());
    }

    #[test]
    fn dropping_during_a_panic_does_not_panic_again() {
        // A second panic while unwinding would abort the process; the guard
        // stays quiet so the first panic is the one reported.
        let result = std::panic::catch_unwind(|| {
            let cx = Ctxt::new();
            cx.error_at(Span::call_site(), "pending");
            panic!("the first panic");
        });
        let payload = result.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"the first panic"));
    }
}
