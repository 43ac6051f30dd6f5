// Minimal Verilator testbench for concord_core, used by hdl/tests/sim.rs to
// check the RTL end to end against the functional model. (The full
// co-simulation harness with the cycle model lives in testbench/.)
//
// Usage: sim SCRIPT. The script is line based:
//   latency N | memsize N | mem ADDR WORD | write ADDR DATA | trace 0|1 | run MAX
// Output: one "C ..." line per cycle when tracing, then "END cycles state",
// "R index value" for every host read address and "M addr word" for every
// non-zero global memory word.
//
// contract.h is written by hdl/tests/sim.rs from concord_uarch (the host
// read-register count, the DONE/TRAP state codes, the atomic operation
// codes), so this file restates none of the microarchitecture contract.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "Vconcord_core.h"
#include "contract.h"
#include "verilated.h"

static uint32_t num(const std::string& s) { return (uint32_t)std::stoul(s, nullptr, 0); }

int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
    if (argc < 2) {
        fprintf(stderr, "usage: sim SCRIPT\n");
        return 2;
    }
    std::ifstream in(argv[1]);
    uint32_t latency = 10, memsize = 1 << 20, maxc = 100000;
    bool trace = false;
    std::vector<std::pair<uint32_t, uint32_t>> writes;
    std::vector<std::pair<uint32_t, uint32_t>> init;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string k, a, b;
        ls >> k >> a >> b;
        if (k == "latency") latency = num(a);
        else if (k == "memsize") memsize = num(a);
        else if (k == "mem") init.push_back({num(a), num(b)});
        else if (k == "write") writes.push_back({num(a), num(b)});
        else if (k == "trace") trace = num(a) != 0;
        else if (k == "run") maxc = num(a);
    }
    std::vector<uint8_t> mem(memsize, 0);
    for (auto& w : init)
        for (int i = 0; i < 4; i++) mem[w.first + i] = (uint8_t)(w.second >> (8 * i));

    Vconcord_core* top = new Vconcord_core;
    auto tick = [&]() {
        top->clock = 1;
        top->eval();
        top->clock = 0;
        top->eval();
    };
    top->clock = 0;
    top->reset = 1;
    top->gmem_req_ready = 1;
    top->eval();
    tick();
    tick();
    top->reset = 0;
    for (auto& w : writes) {
        top->host_we = 1;
        top->host_addr = w.first;
        top->host_wdata = w.second;
        tick();
    }
    top->host_we = 0;

    long resp_at = -1;
    uint32_t resp[32] = {0};
    long cycle = 0;
    int state = 0;
    for (; cycle < (long)maxc; cycle++) {
        top->gmem_req_ready = 1;
        top->gmem_resp_valid = resp_at == cycle;
        for (int i = 0; i < 32; i++) top->gmem_resp_data[i] = resp_at == cycle ? resp[i] : 0;
        top->eval();
        state = top->trace_state;
        if (trace) {
            printf("C %d %d %d %08x %08x %08x %d %08x %d %08x", state, top->trace_warp,
                   top->trace_pc, top->trace_active, top->trace_exec, top->trace_rf_we,
                   top->trace_rf_addr, top->trace_pred_we, top->trace_pred_addr,
                   top->trace_pred_data);
            for (int l = 0; l < 32; l++) printf(" %08x", top->trace_rf_data[l]);
            printf("\n");
        }
        if (top->gmem_req_valid) {
            uint32_t addr = top->gmem_req_addr;
            int kind = top->gmem_req_kind;
            for (int i = 0; i < 32; i++) resp[i] = 0;
            if (kind == 0) {
                for (int i = 0; i < 128; i++)
                    if (addr + i < memsize) resp[i / 4] |= (uint32_t)mem[addr + i] << (8 * (i % 4));
            } else if (kind == 1) {
                for (int i = 0; i < 128; i++)
                    if ((top->gmem_req_mask[i / 32] >> (i % 32)) & 1)
                        mem[addr + i] = (uint8_t)(top->gmem_req_wdata[i / 4] >> (8 * (i % 4)));
            } else {
                uint32_t old = 0;
                for (int i = 0; i < 4; i++) old |= (uint32_t)mem[addr + i] << (8 * i);
                uint32_t b = top->gmem_req_atom_data, n = old;
                int32_t so = (int32_t)old, sb = (int32_t)b;
                // concord_isa::semantics::atomic.
                switch (top->gmem_req_atom_op) {
                    case ATOM_ADD: n = old + b; break;
                    case ATOM_EXCH: n = b; break;
                    case ATOM_MIN: n = (uint32_t)(so < sb ? so : sb); break;
                    case ATOM_MAX: n = (uint32_t)(so > sb ? so : sb); break;
                    case ATOM_MINU: n = old < b ? old : b; break;
                    case ATOM_MAXU: n = old > b ? old : b; break;
                    case ATOM_AND: n = old & b; break;
                    case ATOM_OR: n = old | b; break;
                    case ATOM_XOR: n = old ^ b; break;
                    default:
                        fprintf(stderr, "unknown atomic operation code %d\n", (int)top->gmem_req_atom_op);
                        return 1;
                }
                for (int i = 0; i < 4; i++) mem[addr + i] = (uint8_t)(n >> (8 * i));
                resp[0] = old;
            }
            resp_at = cycle + latency;
        }
        if (state == STATE_DONE || state == STATE_TRAP) break;
        tick();
    }
    printf("END %ld %d\n", cycle, state);
    for (int r = 0; r < HOST_READ_WORDS; r++) {
        top->host_raddr = r;
        top->eval();
        printf("R %d %u\n", r, top->host_rdata);
    }
    for (uint32_t a = 0; a + 4 <= memsize; a += 4) {
        uint32_t w = 0;
        for (int i = 0; i < 4; i++) w |= (uint32_t)mem[a + i] << (8 * i);
        if (w) printf("M %u %u\n", a, w);
    }
    top->final();
    delete top;
    return 0;
}
