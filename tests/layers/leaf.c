/* layers_check's own test: a module below the loop, called by loop_a.c's
 * caller only; no edge back. */
int rp_loop_leaf(int n);
int rp_loop_leaf(int n) { return n + 1; }
