//! Code generation. Each derive emits one `const _: () = { ... };` block
//! holding its impls and the layout proofs it leaves to rustc.

pub mod bit_element;
mod common;
pub mod device_copy;

#[cfg(test)]
mod expansion_tests {
    use syn::{DeriveInput, parse_quote};

    fn bit_element(input: DeriveInput) -> String {
        super::bit_element::derive(&input).to_string()
    }

    fn device_copy(input: DeriveInput) -> String {
        super::device_copy::derive(&input).to_string()
    }

    /// Whether the tokens hold a `use` item (after a `{`, `;` or attribute)
    /// that binds a name. An underscore import (`use path::{A as _, B as
    /// _};`, a record's nested check) binds none, so it cannot change what a
    /// path in a field type means.
    fn imports(out: &str) -> bool {
        ["{ use ", "; use ", "] use "].iter().any(|item| {
            out.match_indices(item).any(|(at, _)| {
                let stmt = &out[at + item.len()..];
                let stmt = &stmt[..stmt.find(';').unwrap_or(stmt.len())];
                let names = stmt.matches(',').count() + 1;
                stmt.matches(" as _").count() != names
            })
        })
    }

    /// Whether the tokens name `bitpack` anywhere.
    fn names_bitpack(out: &str) -> bool {
        out.split_whitespace().any(|token| token == "bitpack")
    }

    #[test]
    fn names_the_runtime_crate_through_the_given_path_and_imports_nothing() {
        let forms: [DeriveInput; 5] = [
            parse_quote! { #[bitpack(crate = "my::facade")] #[repr(transparent)] #[bitwidth(4)] struct F(u8); },
            parse_quote! { #[bitpack(crate = "my::facade", record, default)] #[repr(C)] struct R { a: u3, #[bitpack(reserved)] b: bool } },
            parse_quote! { #[bitpack(crate = "my::facade")] #[repr(C)] struct Rgb { r: u8, g: u8, b: u8 } },
            parse_quote! { #[bitpack(crate = "my::facade")] #[repr(u8)] enum E { A, B } },
            parse_quote! { #[bitpack(crate = "my::facade")] #[repr(transparent)] struct W<T>(T); },
        ];
        for input in forms {
            for out in [bit_element(input.clone()), device_copy(input)] {
                assert!(out.contains("my :: facade ::"), "{out}");
                assert!(!names_bitpack(&out), "a path to `bitpack`: {out}");
                // No import: it would also be in scope for the field types.
                assert!(!imports(&out), "{out}");
                assert!(!out.contains("__private :: core"), "{out}");
                assert!(!out.contains("compile_error"), "{out}");
            }
        }
    }

    #[test]
    fn default_path_is_the_bitpack_crate() {
        let out = bit_element(parse_quote! { #[repr(transparent)] #[bitwidth(4)] struct F(u8); });
        assert!(out.contains("impl :: bitpack :: BitElement for F"), "{out}");
        assert!(!imports(&out), "{out}");
    }

    #[test]
    fn narrow_width_is_checked_through_the_field_type_even_when_spelled_as_a_primitive() {
        let out = bit_element(parse_quote! { #[repr(transparent)] #[bitwidth(8)] struct F(u8); });
        assert!(
            out.contains("8 <= < u8 as :: bitpack :: BitElement > :: BITS"),
            "{out}"
        );
    }

    #[test]
    fn device_copy_checks_fields_through_the_implemented_trait() {
        let out = device_copy(
            parse_quote! { #[bitpack(crate = "f")] #[repr(C)] struct P { a: u8, b: x::Y } },
        );
        assert!(
            out.contains("fn __bitpack_field_is_device_copy < T : f :: DeviceCopy > ()"),
            "{out}"
        );
        assert!(
            out.contains("__bitpack_field_is_device_copy :: < x :: Y > ()"),
            "{out}"
        );
        assert!(out.contains("unsafe impl f :: DeviceCopy for P"), "{out}");
        assert!(!out.contains("__private"), "{out}");
    }

    #[test]
    fn device_copy_asks_the_runtime_crate_for_device_repr_under_the_same_bounds() {
        let out =
            device_copy(parse_quote! { #[bitpack(crate = "f")] #[repr(C)] struct P { a: u8 } });
        assert!(out.contains("f :: __impl_device_repr ! ([] P [])"), "{out}");
        let out = device_copy(
            parse_quote! { #[repr(C)] struct P<T: Copy, const N: usize> { a: [T; N] } },
        );
        assert!(
            out.contains(
                ":: bitpack :: __impl_device_repr ! ([< T : Copy , const N : usize >] P < T , N > \
                 [where [T ; N] : :: bitpack :: DeviceCopy])"
            ),
            "{out}"
        );
        // Not for an input with errors: the stub `DeviceCopy` impl beside
        // them promises nothing, so no `DeviceRepr` rests on it.
        let out = device_copy(parse_quote! { struct P { a: u8 } });
        assert!(out.contains("compile_error"), "{out}");
        assert!(!out.contains("__impl_device_repr"), "{out}");
    }

    #[test]
    fn lanes_only_for_non_generic_types() {
        let out = bit_element(parse_quote! { #[repr(transparent)] #[bitwidth(4)] struct F(u8); });
        assert!(out.contains(":: bitpack :: __impl_lanes ! (F)"), "{out}");
        let out = bit_element(parse_quote! { #[repr(transparent)] #[bitwidth(4)] struct F<T>(T); });
        assert!(!out.contains("__impl_lanes"), "{out}");
        assert!(out.contains("where T : :: bitpack :: BitElement"), "{out}");
    }

    #[test]
    fn errors_come_with_a_stub_impl_and_nothing_else() {
        let out = bit_element(parse_quote! { #[repr(C)] #[bitwidth(0)] struct F(u8, u8); });
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        assert!(out.contains("impl :: bitpack :: BitElement for F"), "{out}");
        assert!(out.contains("unreachable"), "{out}");
        // The stub keeps the type usable as an element: Lanes are there too.
        assert!(out.contains("__impl_lanes ! (F)"), "{out}");
        let out = device_copy(parse_quote! { struct P<T> { a: T } });
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        assert!(
            out.contains("unsafe impl < T > :: bitpack :: DeviceCopy for P < T >"),
            "{out}"
        );
    }

    #[test]
    fn enums_match_every_pattern_without_panicking() {
        let out = bit_element(parse_quote! { #[repr(u8)] enum E { C = 2, A = 0, D = 3, B = 1 } });
        assert!(
            out.contains("0 => Self :: A , 1 => Self :: B , 2 => Self :: C , _ => Self :: D"),
            "{out}"
        );
        assert!(
            !out.contains("panic") && !out.contains("unreachable") && !out.contains("unsafe"),
            "{out}"
        );
    }

    #[test]
    fn underscore_imports_are_the_only_imports_allowed() {
        assert!(!imports("{ use :: a :: { B as _ , C as _ } ; }"));
        assert!(imports("{ use :: a :: { B as _ , C } ; }"));
        assert!(imports("{ use :: a :: B ; }"));
    }

    #[test]
    fn records_place_fields_by_the_widths_before_them() {
        let out = bit_element(parse_quote! {
            #[bitpack(record)]
            struct T { kind: Kind, len: u5, #[bitpack(at = 9)] delta: i6 }
        });
        // Field 1 starts where field 0 ends; field 2 at its `at`.
        assert!(
            out.contains("const LEN : :: bitpack :: Field < T , u5 > = :: bitpack :: Field :: __new ((0u32 + < Kind as :: bitpack :: BitElement > :: BITS))"),
            "{out}"
        );
        assert!(out.contains("Field :: __new (9u32)"), "{out}");
        // The overlap proof of `at = 9`, and the 128-bit proof of each field.
        assert!(
            out.contains("< u5 as :: bitpack :: BitElement > :: BITS <= 9u32"),
            "{out}"
        );
        assert_eq!(out.matches("ends past bit 128").count(), 3, "{out}");
        assert!(out.contains("impl :: bitpack :: Record for T"), "{out}");
        assert!(
            out.contains(":: bitpack :: __impl_record_dlpack ! (T)"),
            "{out}"
        );
        assert!(out.contains("__impl_lanes ! (T)"), "{out}");
        assert!(!out.contains("impl :: core :: default :: Default"), "{out}");
        assert!(
            !out.contains("panic") && !out.contains("unreachable") && !out.contains("unsafe"),
            "{out}"
        );
    }

    #[test]
    fn reserved_fields_get_no_constant_and_default_is_opt_in() {
        let out = bit_element(parse_quote! {
            #[bitpack(record, default)]
            struct H(u2, #[bitpack(reserved = ones)] u6, #[bitpack(default = 3)] u8);
        });
        assert!(out.contains("const F0 :"), "{out}");
        assert!(!out.contains("const F1 :"), "{out}");
        assert!(out.contains("const F2 :"), "{out}");
        assert!(
            out.contains("impl :: core :: default :: Default for H"),
            "{out}"
        );
        assert!(
            out.contains("reserved : :: core :: option :: Option :: Some (true)"),
            "{out}"
        );
    }
}
