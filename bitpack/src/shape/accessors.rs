//! `shape_accessors!`: the `len`, `is_empty`, `shape`, `ndim` and `reshape`
//! methods (and a view's `layout`, `strides`, `offset`), written once for
//! [`NarrowArray`](crate::NarrowArray), [`DynNarrowArray`](crate::DynNarrowArray),
//! [`NarrowRef`](crate::NarrowRef), [`NarrowMut`](crate::NarrowMut),
//! [`View`](crate::View), [`ViewMut`](crate::ViewMut) and [`Layout`](crate::Layout).
//! Here, not in `narrow/`, because `Layout` is built without `alloc`.

/// Writes shape accessors, each with the docs given before its name, in the
/// order given.
///
/// `shape_accessors! { fields: len; is_empty; shape; ndim; reshape;
/// set_flat_len; own_layout; }` reads the fields `len: usize` and
/// `dims: Option<Box<[usize]>>` (`None` is 1-d) of a packed array: `reshape`
/// checks with `shape::checked_shape`, the private `set_flat_len` sets a new
/// length and makes the array 1-d (what `push`, `truncate` and the like
/// do), and the private `own_layout` is the contiguous
/// [`Layout`](crate::Layout) of the array's shape.
///
/// `shape_accessors! { layout: layout; shape; strides; offset; ndim; len;
/// is_empty; }` reads the field `layout: Layout` of a view, each method
/// returning what `Layout`'s method of the same name does.
macro_rules! shape_accessors {
    (@fields len $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn len(&self) -> usize {
            self.len
        }
    };
    (@fields is_empty $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }
    };
    (@fields shape $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn shape(&self) -> &[usize] {
            match &self.dims {
                Some(dims) => dims,
                None => ::core::slice::from_ref(&self.len),
            }
        }
    };
    (@fields ndim $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn ndim(&self) -> usize {
            self.shape().len()
        }
    };
    (@fields reshape $(#[$doc:meta])*) => {
        $(#[$doc])*
        pub fn reshape(&mut self, shape: &[usize]) -> $crate::Result<()> {
            self.dims = $crate::shape::checked_shape(shape, self.len)?;
            Ok(())
        }
    };
    (@fields set_flat_len $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        fn set_flat_len(&mut self, len: usize) {
            self.len = len;
            self.dims = None;
        }
    };
    (@fields own_layout $(#[$doc:meta])*) => {
        $(#[$doc])*
        fn own_layout(&self) -> $crate::Layout {
            $crate::Layout::contiguous(self.shape(), self.len)
                .expect("an array's shape is a valid layout")
        }
    };
    (@layout layout $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn layout(&self) -> &$crate::Layout {
            &self.layout
        }
    };
    (@layout $name:ident $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(&self) -> $crate::shape::shape_accessors!(@returns $name) {
            self.layout.$name()
        }
    };
    (@returns shape) => { &[usize] };
    (@returns strides) => { &[isize] };
    (@returns offset) => { isize };
    (@returns ndim) => { usize };
    (@returns len) => { usize };
    (@returns is_empty) => { bool };
    ($kind:ident: $($(#[$doc:meta])* $name:ident;)*) => {
        $($crate::shape::shape_accessors!(@$kind $name $(#[$doc])*);)*
    };
}

pub(crate) use shape_accessors;
