//! `#[operations]`: marks an `impl Repo` block of `kairos-store`'s `ops/` whose public async
//! methods are store operations.
//!
//! `ops/` is compiled once per backend (see `kairos-store`'s crate docs). The attribute keeps
//! the `impl` block as written and hands the signatures of its `pub async fn`s to the
//! `store_facade!` macro of the instantiation being compiled. The SQLite instantiation's
//! `store_facade!` declares the `Store` methods that dispatch to the backend in use; the
//! PostgreSQL one expands to nothing, so each `Store` method exists once. An area therefore
//! declares its operations next to their SQL, with no central list to edit.
//!
//! `#[derive(FromRow)]`: reads a struct with named fields from a row by column name, for
//! every backend (`sqlx::FromRow` for any `R: sqlx::Row`). A field marked `#[sqlx(flatten)]`
//! is itself read from the same row. This is the one derive the store needs from sqlx's
//! macros; taking it from sqlx would compile sqlx's drivers (and SQLite's C library) a
//! second time for the compiler, which is most of a first build's time.

use proc_macro::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{
    Data, DeriveInput, Fields, FnArg, ImplItem, ItemImpl, Pat, ReturnType, Visibility,
    parse_macro_input,
};

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

/// See the crate documentation.
#[proc_macro_derive(FromRow, attributes(sqlx))]
pub fn derive_from_row(item: TokenStream) -> TokenStream {
    let input = parse_macro_input!(item as DeriveInput);
    match from_row(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn from_row(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "FromRow is derived for structs without generics",
        ));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.span(),
            "FromRow is derived for structs",
        ));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new(
            data.fields.span(),
            "FromRow is derived for structs with named fields",
        ));
    };
    let mut bounds = Vec::new();
    let mut reads = Vec::new();
    for field in &fields.named {
        let Some(ident) = &field.ident else { continue };
        let ty = &field.ty;
        if is_flattened(field)? {
            bounds.push(quote! { #ty: ::sqlx::FromRow<'r, R> });
            reads.push(quote! { #ident: <#ty as ::sqlx::FromRow<'r, R>>::from_row(row)? });
        } else {
            let column = ident.to_string();
            let column = column.strip_prefix("r#").unwrap_or(&column);
            bounds.push(quote! {
                #ty: ::sqlx::Decode<'r, R::Database> + ::sqlx::Type<R::Database>
            });
            reads.push(quote! { #ident: ::sqlx::Row::try_get(row, #column)? });
        }
    }
    let name = &input.ident;
    Ok(quote! {
        impl<'r, R: ::sqlx::Row> ::sqlx::FromRow<'r, R> for #name
        where
            &'r str: ::sqlx::ColumnIndex<R>,
            #(#bounds,)*
        {
            fn from_row(row: &'r R) -> ::sqlx::Result<Self> {
                ::std::result::Result::Ok(Self { #(#reads,)* })
            }
        }
    })
}

/// Whether a field carries `#[sqlx(flatten)]`; any other `#[sqlx(…)]` is refused.
fn is_flattened(field: &syn::Field) -> syn::Result<bool> {
    let mut flatten = false;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("sqlx")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("flatten") {
                flatten = true;
                Ok(())
            } else {
                Err(meta.error("only #[sqlx(flatten)] is supported"))
            }
        })?;
    }
    Ok(flatten)
}
