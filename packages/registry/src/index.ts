/**
 * @core/registry — see README.md. The domain arrives with its issue; nothing here pretends to serve it yet.
 */
export {}
