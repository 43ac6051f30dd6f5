; c[i] = a[i] + b[i] for i < n, one thread per element.
; The bounds check is a per-lane branch: threads past n jump to the exit
; while the others run the body, then the warp reconverges at `done`.
.param a
.param b
.param c
.param n
.entry vecadd
        s2r     r1, %tid.x
        s2r     r2, %ctaid.x
        s2r     r3, %ntid.x
        mul     r2, r2, r3
        add     r1, r1, r2          ; i = blockIdx.x * blockDim.x + threadIdx.x
        ldparam r4, n
        setp.ge p1, r1, r4
        @p1 bra done                ; if (i >= n) return
        shl     r5, r1, 2           ; byte offset of element i
        ldparam r6, a
        add     r6, r6, r5
        ld.global r7, [r6]
        ldparam r6, b
        add     r6, r6, r5
        ld.global r8, [r6]
        add     r7, r7, r8
        ldparam r6, c
        add     r6, r6, r5
        st.global [r6], r7
done:
        exit
