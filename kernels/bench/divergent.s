; Divergence-heavy benchmark kernel: every thread loops a per-lane number of
; times (1..32) and takes one side of a lane-dependent if/else in each
; iteration, so warps split and reconverge under min-PC arbitration.
;   param 0: iterations scale (trip count = scale * ((tid % 32) + 1) / 8 + 1)
;   param 1: output buffer (one word per thread)
.param scale
.param out
.entry main
        s2r     r1, %tid
        s2r     r2, %ctaid.x
        s2r     r3, %ntid.x
        mul     r2, r2, r3
        add     r1, r1, r2          ; r1 = global thread id
        and     r3, r1, 31
        add     r3, r3, 1
        ldparam r4, scale
        mul     r3, r3, r4
        shr     r3, r3, 3
        add     r3, r3, 1           ; r3 = per-lane trip count
        movi    r2, 0               ; loop counter
        mov     r5, r1              ; accumulator
loop:
        xor     r6, r2, r1
        and     r6, r6, 3
        setp.eq p1, r6, 0
        @p1 bra rare
        add     r5, r5, r6          ; common side
        mul     r7, r5, r6
        xor     r5, r5, r7
        bra     join
rare:
        sub     r5, r5, r2
        shl     r7, r5, 1
        or      r5, r5, r7
        add     r5, r5, 7
        mul     r5, r5, r2
join:
        add     r2, r2, 1
        setp.lt p2, r2, r3
        @p2 bra loop
        ldparam r6, out
        shl     r7, r1, 2
        add     r6, r6, r7
        st.global [r6], r5
        exit
