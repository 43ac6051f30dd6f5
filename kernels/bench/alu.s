; ALU-heavy benchmark kernel: a uniform loop of 14 data operations per
; iteration on per-thread values. Every warp stays converged, so the
; functional model's throughput here is its best case.
;   param 0: iterations
;   param 1: output buffer (one word per thread)
.param iterations
.param out
.entry main
        s2r     r1, %tid
        s2r     r2, %ctaid.x
        s2r     r3, %ntid.x
        mul     r2, r2, r3
        add     r1, r1, r2          ; r1 = global thread id
        ldparam r3, iterations
        movi    r2, 0               ; loop counter
        mov     r4, r1
loop:
        add     r5, r4, r2
        mul     r6, r5, r5
        xor     r7, r6, r1
        shl     r8, r7, 3
        sub     r9, r8, r5
        and     r10, r9, r6
        or      r11, r10, r7
        shr     r12, r11, 2
        max     r13, r12, r9
        minu    r14, r13, r11
        mulhi   r15, r14, r6
        sra     r16, r15, 1
        add     r4, r4, r16
        add     r2, r2, 1
        setp.lt p1, r2, r3
        bra.any p1, loop
        ldparam r5, out
        shl     r6, r1, 2
        add     r5, r5, r6
        st.global [r5], r4
        exit
