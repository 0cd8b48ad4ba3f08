/* layers_check's own test: calls back into loop_a.c. */
int rp_loop_a(int n);
int rp_loop_b(int n);
int rp_loop_b(int n) { return n > 0 ? rp_loop_a(n - 1) : 1; }
