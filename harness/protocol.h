/*
 * The wire between the grader and the runner: framed, versioned,
 * size-capped binary messages on a pipe.  This one module encodes and
 * decodes every message; the runner, the grader and their tests all use it.
 *
 * A frame is a 12-byte header -- magic "WGP" + version byte, type (u16),
 * reserved (u16), payload length (u32), all little-endian -- followed by the
 * payload.  A payload never exceeds PROTO_MAX_PAYLOAD; a decoder rejects
 * bad magic, another version, an unknown type, an oversized length and a
 * stream that ends inside a frame.  Integers are little-endian, strings are
 * u32 length + bytes (no NUL), doubles are IEEE-754 bit patterns in a u64.
 *
 * Trust: the grader decodes what an untrusted process wrote.  Every getter
 * is bounds-checked and only sets the reader's error flag on overrun;
 * callers check proto_reader_ok() once after decoding a message.
 */
#ifndef PROTOCOL_H
#define PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION 3
#define PROTO_HEADER_SIZE 12
#define PROTO_MAX_PAYLOAD (64u << 20)
#define PROTO_MAX_STRING 4096u
#define PROTO_MAX_LAUNCHES 64u  /* launches described per launcher call */
#define PROTO_MAX_REPS 1000u
#define PROTO_MAX_LINES 512u    /* source lines per traffic report */
#define PROTO_MAX_PATH 4096u

/* Correctness buffers: each shape's output is poisoned with POISON bytes
 * and framed by GUARD_ELEMS elements of GUARD bytes on each side. */
#define PROTO_GUARD_ELEMS 512u
#define PROTO_POISON_BYTE 0xA5
#define PROTO_GUARD_BYTE 0x5A

/*
 * Two conversations use these frames.  Grader and runner: JOB in, then
 * HELLO, and per phase PHASE ... DONE out (SHAPE, LAUNCHES, RECORD and
 * ERROR in the correctness phase; KEY_REQUEST answered by KEY, PERF,
 * LAUNCHES and ERROR in the performance phase).  Grader and replay:
 * REPLAY and RECORD in, then HELLO, SHAPE, TRAFFIC, LINES, NOTE and DONE
 * out.
 */
enum proto_type {
	PROTO_JOB = 1,   /* grader -> runner: what to do */
	PROTO_HELLO,     /* runner, replay: backend and device */
	PROTO_PHASE,     /* runner: a phase begins */
	PROTO_SHAPE,     /* runner, replay: one chunk of a guarded output */
	PROTO_LAUNCHES,  /* runner: the launches one launcher call made */
	PROTO_ERROR,     /* runner: a CUDA error or kernel fault */
	PROTO_PERF,      /* runner: timing results */
	PROTO_TRAFFIC,   /* replay: memory traffic of one replayed call */
	PROTO_DONE,      /* runner: a phase ended; replay: finished */
	PROTO_RECORD,    /* runner -> grader -> replay: launch record chunk */
	PROTO_KEY_REQUEST, /* runner: the input key of a timed repetition */
	PROTO_KEY,       /* grader -> runner: that key */
	PROTO_LINES,     /* replay: traffic per source line of one call */
	PROTO_NOTE,      /* replay: why a call could not be replayed */
	PROTO_REPLAY,    /* grader -> replay: what to replay */
	PROTO_PREDICTION,/* replay: the performance call's predicted time */
	PROTO_KERNELS,   /* replay: the kernels one replayed call launched */
	PROTO_DIGEST,    /* runner: the digests of a large guarded output */
	PROTO_DIGEST_REPLY, /* grader -> runner: send its bytes or not */
	PROTO_TYPE_MAX
};

/* Phases, also used as bits in proto_job.phases, in the order a runner
 * runs them. */
enum proto_phase {
	PROTO_PHASE_CORRECTNESS = 1,
	PROTO_PHASE_PERF = 2
};

/* ---- growable output buffer ---- */
struct proto_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
	int oom; /* set when an allocation failed; later puts are ignored */
};

void proto_buf_init(struct proto_buf *b);
void proto_buf_release(struct proto_buf *b);
void proto_put_u32(struct proto_buf *b, uint32_t v);
void proto_put_u64(struct proto_buf *b, uint64_t v);
void proto_put_i32(struct proto_buf *b, int32_t v);
void proto_put_f64(struct proto_buf *b, double v);
void proto_put_bytes(struct proto_buf *b, const void *p, size_t n);
void proto_put_str(struct proto_buf *b, const char *s); /* NULL = "" */

/* ---- bounds-checked reader ---- */
struct proto_reader {
	const unsigned char *p;
	size_t len;
	size_t pos;
	int err;
};

void proto_reader_init(struct proto_reader *r, const void *p, size_t len);
uint32_t proto_get_u32(struct proto_reader *r);
uint64_t proto_get_u64(struct proto_reader *r);
int32_t proto_get_i32(struct proto_reader *r);
double proto_get_f64(struct proto_reader *r);
/* Points into the payload (no copy); NULL and err on overrun. */
const void *proto_get_bytes(struct proto_reader *r, size_t n);
/* Copies into dst (NUL-terminated, truncated to dstlen-1); err on overrun
 * or a string longer than PROTO_MAX_STRING. */
void proto_get_str(struct proto_reader *r, char *dst, size_t dstlen);
/* 1 when no overrun happened and every byte was consumed. */
int proto_reader_done(const struct proto_reader *r);

/* ---- frames ---- */

/* Append a frame header + payload to b. */
void proto_frame(struct proto_buf *b, enum proto_type type,
		 const void *payload, size_t len);
/* Write n bytes to fd, retrying short writes and EINTR; 0 or -1. */
int proto_write_all(int fd, const void *p, size_t n);
/* Write one frame to fd, retrying short writes and EINTR; 0 or -1. */
int proto_write_frame(int fd, enum proto_type type, const void *payload,
		      size_t len);

/* Incremental decoder for a byte stream.  Feed it what the pipe gave, then
 * take frames until proto_decoder_next returns 0.  The payload pointer is
 * valid until the next feed or next call. */
struct proto_decoder {
	unsigned char *buf;
	size_t len;   /* bytes held */
	size_t start; /* first unconsumed byte */
	size_t cap;
	size_t max_payload;
	char error[128];
};

void proto_decoder_init(struct proto_decoder *d, size_t max_payload);
void proto_decoder_release(struct proto_decoder *d);
int proto_decoder_feed(struct proto_decoder *d, const void *p, size_t n);
/* 1: a frame was returned; 0: need more bytes; -1: corrupt stream (reason
 * in d->error; the decoder stays failed). */
int proto_decoder_next(struct proto_decoder *d, enum proto_type *type,
		       const unsigned char **payload, size_t *len);
/* 1 when bytes of an incomplete frame are still held (call at EOF). */
int proto_decoder_pending(const struct proto_decoder *d);

/* Read one whole frame from fd, blocking: its header, checked as the
 * decoder checks it (magic, version, type, a payload of at most cap
 * bytes; 0 or more than PROTO_MAX_PAYLOAD means PROTO_MAX_PAYLOAD), then
 * its payload into buf, which holds cap bytes.  Short reads and EINTR are
 * retried.  Returns 1 with *type and *len set; 0 at the end of the
 * stream before a frame's first byte; -1 with the reason in why (when
 * not NULL): a read error, the stream ending inside a header or a
 * payload, a bad header, a payload longer than cap (left unread: the
 * stream cannot be resynchronised, stop reading it).  For a process
 * that has nothing to do but wait for its next frame (the runner, the
 * replay); the grader, which must not block, uses the decoder. */
int proto_read_frame(int fd, enum proto_type *type, void *buf, size_t cap,
		     size_t *len, char *why, size_t whylen);

const char *proto_type_name(enum proto_type t);

/* ---- messages ---- */

struct proto_job {
	char exercise[64];
	uint64_t seed;
	uint32_t phases;     /* PROTO_PHASE_* bits */
	uint32_t perf_reps;  /* timed repetitions per launcher */
	uint32_t flags;      /* PROTO_JOB_* */
	uint32_t shape;      /* with PROTO_JOB_ONE_SHAPE: its index */
};
#define PROTO_JOB_SKIP_GPU_ONLY 0x1u /* skip edges flagged GPU-only */
#define PROTO_JOB_MEASURED_ONLY 0x2u /* only the measured calls */
#define PROTO_JOB_ONE_SHAPE 0x4u     /* only shape `shape` (a rerun) */
/* the output in an allocation of its own size, no guard bands, nothing
 * sent back: a write past its end is outside every allocation, where
 * compute-sanitizer sees it */
#define PROTO_JOB_BARE_OUTPUT 0x8u
/* (emulator) after the correctness phase, call the launcher once more at
 * the performance shape without running anything, and send the record
 * of that call with index exercise_nshapes_all(): the performance call,
 * whose time the replay predicts */
#define PROTO_JOB_PERF_RECORD 0x10u
/* (GPU) the job has both phases, and the performance phase waits for its
 * turn (PROTO_TURN_REP) before it touches the GPU: the grader's other
 * runners of the grade are sweeping meanwhile (grader/gputurns.h); once
 * its DONE is sent, the runner waits for the end of stdin before it
 * exits */
#define PROTO_JOB_TIMED_TURN 0x20u
/* (GPU) a guarded output region of PROTO_DIGEST_MIN_BYTES or more goes
 * first as a DIGEST frame -- exercise_digest of the region and of the
 * input, computed on the device -- and its bytes follow in SHAPE frames
 * only when the grader's DIGEST_REPLY asks for them (the digests are not
 * its oracle's).  stdin stays open for the replies. */
#define PROTO_JOB_DIGESTS 0x40u
#define PROTO_DIGEST_MIN_BYTES ((uint64_t)16 << 20)

struct proto_hello {
	char backend[16];  /* "cuda" or "emu" */
	char device[128];
	uint32_t cc_major, cc_minor;
	uint32_t sm_count;
	uint64_t l2_bytes;
	uint64_t global_mem_bytes;
};

struct proto_phase_msg {
	uint32_t phase;
	uint32_t count; /* shapes or repetitions to come */
};

/* One chunk of the guarded output of one correctness shape: the bytes
 * [offset, offset+len) of guard + output + guard. */
struct proto_shape {
	uint32_t index;
	uint32_t guard_elems;  /* elements of guard on each side */
	uint64_t total_bytes;  /* whole guarded region */
	uint64_t offset;
	uint64_t input_hash;   /* exercise_hash of the input after the run */
	const void *data;      /* decode: points into the frame */
	uint64_t len;
};

/* A guarded output region as digests (PROTO_JOB_DIGESTS): the region's
 * size as a SHAPE frame gives it, exercise_digest of the region and of
 * the input after the run. */
struct proto_digest {
	uint32_t index;
	uint32_t guard_elems;
	uint64_t total_bytes;
	uint64_t input_digest;
	uint64_t region_digest;
};

/* The grader's answer to a DIGEST: send_bytes 1, the region follows in
 * SHAPE frames (whose input_hash is exercise_hash's, as always); 0, the
 * digests are the oracle's and nothing follows. */
struct proto_digest_reply {
	uint32_t index;
	uint32_t send_bytes;
};

struct proto_launch {
	uint32_t grid[3];
	uint32_t block[3];
	uint64_t dynamic_shared_bytes;
	uint32_t on_given_stream; /* 1: launched on the stream it was given */
};

struct proto_launches {
	uint32_t phase;
	uint32_t index;      /* shape index, or UINT32_MAX for perf */
	uint32_t total;      /* launches the launcher call made */
	uint32_t count;      /* described below (<= PROTO_MAX_LAUNCHES) */
	struct proto_launch launch[PROTO_MAX_LAUNCHES];
};

/* The kinds of kernel fault an ERROR frame carries: the wire's own
 * words, so that the grader reads them without the emulator's headers.
 * The runner and the replay map the emulator's kinds to these
 * (harness/emufault.h); the values are the wire encoding and never
 * change. */
enum proto_fault {
	PROTO_FAULT_NONE = 0,          /* a GPU, or no fault */
	PROTO_FAULT_OUT_OF_BOUNDS = 1, /* access outside any allocation */
	PROTO_FAULT_RACE = 2,          /* shared-memory race between warps */
	PROTO_FAULT_UNINIT_SHARED = 3, /* shared memory read, never written */
	PROTO_FAULT_BARRIER = 4,       /* divergent or missing barrier */
	PROTO_FAULT_UNSUPPORTED = 5,   /* what the emulator cannot run */
	PROTO_FAULT_MISALIGNED = 6,    /* misaligned address */
	PROTO_FAULT_TRAP = 7,          /* trap or other kernel error */
	PROTO_FAULT_LIMIT = 8,         /* instruction budget spent (hang) */
	PROTO_FAULT_ASSERT = 9,        /* a failed assert() in a kernel */
	PROTO_FAULT_RESOURCES = 10,    /* the emulator ran out of memory */
	PROTO_FAULT_MAX
};

struct proto_error {
	uint32_t phase;
	uint32_t index;       /* shape index or repetition */
	int32_t cuda_code;    /* cudaError_t value, 0 when not a CUDA error */
	uint32_t fault_kind;  /* enum proto_fault; any value may arrive */
	char name[64];        /* e.g. "cudaErrorIllegalAddress" */
	char message[512];
};

struct proto_perf {
	uint32_t reps;
	double student_ms[PROTO_MAX_REPS];
	double reference_ms[PROTO_MAX_REPS];
	double empty_launch_ms;    /* median event time of an empty launch */
	double copy_gbps;          /* measured device-to-device copy, R+W */
	uint64_t bytes_moved;      /* bytes read + written by one launcher call */
	uint32_t mismatched_runs;  /* timed outputs unlike the reference */
	uint32_t outside_stream_runs; /* output incomplete at stream end */
	double host_sync_ms;       /* median host-clock launch+device sync */
};

/* One chunk of the launch record of the measured call at shape index
 * (emu/trace.h): bytes [offset, offset+len) of total_bytes. */
struct proto_record {
	uint32_t index;
	uint64_t total_bytes;
	uint64_t offset;
	const void *data;      /* decode: points into the frame */
	uint64_t len;
};
#define PROTO_MAX_RECORD (48ull << 20)

struct proto_key {
	uint32_t rep;          /* the timed repetition, or PROTO_TURN_REP */
	uint64_t key;          /* KEY only: its input comes from this */
};
/* With PROTO_JOB_TIMED_TURN, the first KEY_REQUEST of the performance
 * phase, before any of its GPU work, names this repetition: it asks for
 * the timed phase's turn, and its KEY (key 0) says the turn has come. */
#define PROTO_TURN_REP 0xFFFFFFFFu

/* Traffic counters: up to PC_DS_MOVED in the order of struct
 * wgemu_counters (the kernels' traffic), then the device-side copies'
 * and memsets', kept apart. */
enum {
	PC_GLD_REQ, PC_GLD_SEC, PC_GST_REQ, PC_GST_SEC, PC_SLD_WF,
	PC_SLD_CONF, PC_SST_WF, PC_SST_CONF, PC_LANE_INSNS, PC_GATOM_REQ,
	PC_GATOM_SEC, PC_SLD_BYTES, PC_SST_BYTES, PC_DSLD_BYTES,
	PC_DSST_BYTES, PC_DS_MOVED, PC_CPY_LD_SEC, PC_CPY_ST_SEC,
	PC_CPY_LD_MIN, PC_CPY_ST_MIN, PC_COUNT
};
/* PC_DS_MOVED: bytes loaded from dynamic shared memory that another
 * thread of the block stored.  PC_CPY_*_SEC: the sectors the call's
 * device-side copies and memsets touched (as a copy engine moves them:
 * whole sectors), PC_CPY_*_MIN the least they would need (all their
 * bytes / 32, per side): a copy is judged against its own least and
 * never dilutes the kernels' coalescing. */

/* What one replayed call moved: the sum over every launch it made and
 * every device-side copy and memset (counted as a copy engine moves
 * whole sectors). */
struct proto_traffic {
	uint32_t who;          /* 0 the student's call, 1 the reference's */
	uint32_t index;        /* shape index */
	uint64_t launches;
	uint64_t dynamic_smem_launches; /* of them, with dynamic shared */
	uint64_t copies;       /* device-side copies and memsets */
	uint64_t h2d_bytes;    /* data the call moved host -> device */
	uint64_t d2h_bytes;    /* and device -> host */
	uint64_t c[PC_COUNT];
};

struct proto_line {
	char file[256];
	int32_t line;
	uint64_t c[PC_COUNT];
};

/* The student call's traffic per source line (its kernels' .loc). */
struct proto_lines {
	uint32_t index;
	uint32_t count;        /* <= PROTO_MAX_LINES */
	struct proto_line line[PROTO_MAX_LINES];
};

/* Why a measured call earns no technique credit, as the replay found. */
enum proto_note_kind {
	NOTE_NO_RECORD = 1,  /* (grader) no record arrived */
	NOTE_INCOMPLETE,     /* the record is cut short or names an
			      * operation it cannot represent */
	NOTE_MISMATCH,       /* the record does not fit the call */
	NOTE_FOREIGN_KERNEL, /* it launches a kernel not in the student's
			      * code */
	NOTE_FAULT,          /* a replayed launch faulted */
	NOTE_UNSUPPORTED,    /* a replayed launch reached what the emulator
			      * cannot run (PROTO_FAULT_UNSUPPORTED) */
	NOTE_NO_PREDICTION,  /* the performance model cannot predict the
			      * performance call (the message says why) */
	NOTE_KIND_MAX
};

struct proto_note {
	uint32_t index;
	uint32_t kind;         /* enum proto_note_kind */
	char message[512];
};

/* The replay's job: the measured call at shape index of a run, replayed
 * from its record (RECORD frames follow) against the PTX in the student
 * object at `object`.  For the performance call, the registers per
 * thread ptxas gives each kernel, the student's and the reference's,
 * as the grader ran it (resusage.h): the model's occupancy. */
#define PROTO_MAX_REGS 64u
struct proto_regs {
	char name[256];      /* mangled */
	uint32_t regs;
};
struct proto_replay {
	char exercise[64];
	uint64_t seed;
	uint32_t index;      /* a measured call, or the performance call */
	char object[PROTO_MAX_PATH];
	char gpu[16];        /* the performance call: the GPU to predict */
	uint32_t nregs;
	struct proto_regs regs[PROTO_MAX_REGS];
};

/* The performance call's prediction (emu/perf.h): the reference's and
 * the record's time on the named GPU, and the record's slowest launch
 * in words. */
struct proto_prediction {
	double reference_ms, student_ms;
	uint32_t launches;          /* in the record, copies included */
	char gpu[48];
	char kernel[128];           /* the slowest launch */
	char limit[64];             /* what bounds it */
	uint32_t resident_blocks, active_sms, sampled;
	uint32_t grid_blocks;
	uint32_t regs;              /* its registers per thread; 0: none
				     * known, 32 assumed */
};

/* The distinct kernels one replayed call launched, in first-launch
 * order: a hash of each one's mangled name (what compares) and the
 * name as it reads (what a report shows). */
#define PROTO_MAX_KERNELS 32u
struct proto_kernel {
	uint64_t hash;
	char name[128];
};

struct proto_kernels {
	uint32_t index;
	uint32_t count;        /* <= PROTO_MAX_KERNELS */
	uint32_t more;         /* distinct kernels beyond count */
	struct proto_kernel k[PROTO_MAX_KERNELS];
};

/* FNV-1a, 64 bits, of a kernel's mangled name: proto_kernel.hash. */
uint64_t proto_kernel_hash(const char *mangled);

struct proto_done {
	uint32_t phase;
	uint32_t completed; /* shapes or repetitions done */
};

/* Encoders append one whole frame to b.  Decoders take a payload and
 * return 0 or -1 (malformed: wrong size, overrun, out-of-range count). */
void proto_enc_job(struct proto_buf *b, const struct proto_job *m);
int proto_dec_job(const void *p, size_t n, struct proto_job *m);
void proto_enc_hello(struct proto_buf *b, const struct proto_hello *m);
int proto_dec_hello(const void *p, size_t n, struct proto_hello *m);
void proto_enc_phase(struct proto_buf *b, const struct proto_phase_msg *m);
int proto_dec_phase(const void *p, size_t n, struct proto_phase_msg *m);
void proto_enc_shape(struct proto_buf *b, const struct proto_shape *m);
/* proto_enc_shape's frame written to fd, its bytes from where m->data
 * lies: a chunk of a large output costs no copy and no new memory (0 or
 * -1, as proto_write_all). */
int proto_write_shape(int fd, const struct proto_shape *m);
int proto_dec_shape(const void *p, size_t n, struct proto_shape *m);
void proto_enc_digest(struct proto_buf *b, const struct proto_digest *m);
int proto_dec_digest(const void *p, size_t n, struct proto_digest *m);
void proto_enc_digest_reply(struct proto_buf *b,
			    const struct proto_digest_reply *m);
int proto_dec_digest_reply(const void *p, size_t n,
			   struct proto_digest_reply *m);
void proto_enc_launches(struct proto_buf *b, const struct proto_launches *m);
int proto_dec_launches(const void *p, size_t n, struct proto_launches *m);
void proto_enc_error(struct proto_buf *b, const struct proto_error *m);
int proto_dec_error(const void *p, size_t n, struct proto_error *m);
void proto_enc_perf(struct proto_buf *b, const struct proto_perf *m);
int proto_dec_perf(const void *p, size_t n, struct proto_perf *m);
void proto_enc_record(struct proto_buf *b, const struct proto_record *m);
int proto_dec_record(const void *p, size_t n, struct proto_record *m);
void proto_enc_key(struct proto_buf *b, enum proto_type type,
		   const struct proto_key *m);
int proto_dec_key(const void *p, size_t n, enum proto_type type,
		  struct proto_key *m);
void proto_enc_traffic(struct proto_buf *b, const struct proto_traffic *m);
int proto_dec_traffic(const void *p, size_t n, struct proto_traffic *m);
void proto_enc_lines(struct proto_buf *b, const struct proto_lines *m);
int proto_dec_lines(const void *p, size_t n, struct proto_lines *m);
void proto_enc_note(struct proto_buf *b, const struct proto_note *m);
int proto_dec_note(const void *p, size_t n, struct proto_note *m);
void proto_enc_replay(struct proto_buf *b, const struct proto_replay *m);
int proto_dec_replay(const void *p, size_t n, struct proto_replay *m);
void proto_enc_prediction(struct proto_buf *b,
			  const struct proto_prediction *m);
int proto_dec_prediction(const void *p, size_t n,
			 struct proto_prediction *m);
void proto_enc_kernels(struct proto_buf *b, const struct proto_kernels *m);
int proto_dec_kernels(const void *p, size_t n, struct proto_kernels *m);
void proto_enc_done(struct proto_buf *b, const struct proto_done *m);
int proto_dec_done(const void *p, size_t n, struct proto_done *m);

#endif
