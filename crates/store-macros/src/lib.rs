//! `#[operations]`: marks an `impl Repo` block of `kairos-store`'s `ops/` whose public async
//! methods are store operations.
//!
//! `ops/` is compiled once per backend (see `kairos-store`'s crate docs). The attribute keeps
//! the `impl` block as written and hands the signatures of its `pub async fn`s to the
//! `store_facade!` macro of the instantiation being compiled. The SQLite instantiation's
//! `store_facade!` declares the `Store` methods that dispatch to the backend in use; the
//! PostgreSQL one expands to nothing, so each `Store` method exists once. An area therefore
//! declares its operations next to their SQL, with no central list to edit.

use proc_macro::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ItemImpl, Pat, ReturnType, Visibility, parse_macro_input};

/// See the crate documentation.
#[proc_macro_attribute]
pub fn operations(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(
            proc_macro2::TokenStream::from(attr).span(),
            "#[operations] takes no arguments",
        )
        .to_compile_error()
        .into();
    }
    let block = parse_macro_input!(item as ItemImpl);
    match facade_signatures(&block) {
        Ok(signatures) => quote! {
            #block
            store_facade! { #(#signatures)* }
        }
        .into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// `/// docs  pub async fn name(&self, arg: Type, …) -> Ret;` for each public async method.
fn facade_signatures(block: &ItemImpl) -> syn::Result<Vec<proc_macro2::TokenStream>> {
    let mut out = Vec::new();
    for item in &block.items {
        let ImplItem::Fn(f) = item else { continue };
        if !matches!(f.vis, Visibility::Public(_)) || f.sig.asyncness.is_none() {
            continue;
        }
        let docs = f.attrs.iter().filter(|a| a.path().is_ident("doc"));
        let name = &f.sig.ident;
        let mut receiver = false;
        let mut args = Vec::new();
        for input in &f.sig.inputs {
            match input {
                FnArg::Receiver(r) if r.reference.is_some() && r.mutability.is_none() => {
                    receiver = true;
                }
                FnArg::Typed(t) => match &*t.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                        let ident = &p.ident;
                        let ty = &t.ty;
                        args.push(quote! { #ident: #ty });
                    }
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "store operations take plain named arguments",
                        ));
                    }
                },
                FnArg::Receiver(r) => {
                    return Err(syn::Error::new(r.span(), "store operations take &self"));
                }
            }
        }
        if !receiver {
            return Err(syn::Error::new(
                f.sig.span(),
                "store operations are methods taking &self",
            ));
        }
        if !f.sig.generics.params.is_empty() {
            return Err(syn::Error::new(
                f.sig.generics.span(),
                "store operations cannot be generic (the facade dispatches by name)",
            ));
        }
        let ret = match &f.sig.output {
            ReturnType::Default => quote! { () },
            ReturnType::Type(_, ty) => quote! { #ty },
        };
        out.push(quote! {
            #(#docs)*
            pub async fn #name(&self #(, #args)*) -> #ret;
        });
    }
    Ok(out)
}
