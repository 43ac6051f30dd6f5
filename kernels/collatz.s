; steps[i] = number of Collatz steps from start[i] down to 1.
; Every thread loops a data-dependent number of times and takes a
; data-dependent side of an if/else in each iteration: the warp splits and
; reconverges under min-PC arbitration without any reconvergence stack.
.param start
.param steps
.entry collatz
        s2r     r1, %tid
        s2r     r2, %ctaid.x
        s2r     r3, %ntid.x
        mul     r2, r2, r3
        add     r1, r1, r2          ; i
        shl     r1, r1, 2
        ldparam r2, start
        add     r2, r2, r1
        ld.global r3, [r2]          ; x = start[i]
        movi    r4, 0               ; steps
loop:
        setp.leu p1, r3, 1
        @p1 bra done                ; while (x > 1)
        and     r5, r3, 1
        setp.eq p2, r5, 0
        @p2 bra even
        mul     r3, r3, 3           ; odd: x = 3x + 1
        add     r3, r3, 1
        bra     next
even:
        shr     r3, r3, 1           ; even: x = x / 2
next:
        add     r4, r4, 1
        bra     loop
done:
        ldparam r2, steps
        add     r2, r2, r1
        st.global [r2], r4
        exit
