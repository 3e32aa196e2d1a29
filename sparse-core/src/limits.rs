//! Size limits that keep the compiler's time, memory and stack bounded on any input. The macro
//! runs on rustc's thread (8 MiB of stack, unoptimized in debug builds), and parsing and every
//! pass recurse over the expression tree, whose depth can reach the number of tokens of a
//! statement. The limits are far above any kernel written by hand and are checked before the
//! recursive passes see the input.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

/// The most tokens a kernel body may hold (about 250 operands).
pub const MAX_BODY_TOKENS: usize = 1024;

/// The deepest nesting of groups (parentheses, brackets, braces) or angle brackets in the input.
pub const MAX_NESTING: usize = 64;

/// The most functions one `sparse_kernel!` invocation may hold.
pub const MAX_KERNELS: usize = 64;

/// The most parameters a kernel may take.
pub const MAX_PARAMS: usize = 256;

/// Checks the nesting depth of groups and angle brackets everywhere in `input`, without
/// recursion.
pub fn check_nesting(input: &TokenStream) -> Result<(), syn::Error> {
    let mut stack: Vec<(proc_macro2::token_stream::IntoIter, usize)> =
        vec![(input.clone().into_iter(), 0)];
    // Prefix operators in a row nest as deeply in the parser as groups do.
    let mut prefix_run = 0;
    while let Some((iter, angles)) = stack.last_mut() {
        let Some(tree) = iter.next() else {
            stack.pop();
            continue;
        };
        match &tree {
            TokenTree::Punct(p) if matches!(p.as_char(), '-' | '!' | '*' | '&') => {
                prefix_run += 1;
                if prefix_run > MAX_NESTING {
                    return Err(syn::Error::new(
                        p.span(),
                        format!("more than {MAX_NESTING} prefix operators in a row"),
                    ));
                }
            }
            _ => prefix_run = 0,
        }
        match tree {
            TokenTree::Group(g) => {
                if stack.len() > MAX_NESTING {
                    return Err(too_deep(&g));
                }
                stack.push((g.stream().into_iter(), 0));
            }
            TokenTree::Punct(p) if p.as_char() == '<' => {
                *angles += 1;
                if *angles > MAX_NESTING {
                    return Err(syn::Error::new(
                        p.span(),
                        format!("`<` nested more than {MAX_NESTING} deep"),
                    ));
                }
            }
            TokenTree::Punct(p) if p.as_char() == '>' => *angles = angles.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn too_deep(g: &Group) -> syn::Error {
    syn::Error::new(
        g.span(),
        format!("groups nested more than {MAX_NESTING} deep: write the expression with fewer parentheses"),
    )
}

/// The number of tokens in `stream`, groups and their contents included.
pub fn count_tokens(stream: &TokenStream) -> usize {
    let mut count = 0;
    let mut pending = vec![stream.clone()];
    while let Some(s) = pending.pop() {
        for tree in s {
            count += 1;
            if let TokenTree::Group(g) = tree {
                pending.push(g.stream());
            }
        }
    }
    count
}

/// The error for a body of `tokens` tokens past [`MAX_BODY_TOKENS`].
pub fn body_too_large(body: &Group, tokens: usize) -> syn::Error {
    debug_assert_eq!(body.delimiter(), Delimiter::Brace);
    syn::Error::new(
        body.span(),
        format!(
            "this kernel body has {tokens} tokens; a kernel holds at most {MAX_BODY_TOKENS}\nhelp: split the statement into several kernels (a dense output can accumulate the parts with `+=`)"
        ),
    )
}
