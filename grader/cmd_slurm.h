/*
 * 'warpgrade slurm': grade a class on a Slurm cluster as a job array
 * (slurm.h).  Writes the array's script, or submits it with sbatch.
 */
#ifndef CMD_SLURM_H
#define CMD_SLURM_H

/*
 * argv[0] is "slurm".  Usage:
 *   warpgrade slurm SUBMISSIONS_DIR --out RESULTS_DIR [options]
 * Creates RESULTS_DIR and RESULTS_DIR/.slurm (the tasks' output files),
 * then writes the script to stdout, or atomically to -o FILE; with
 * --submit, saves it (to FILE, else RESULTS_DIR/.slurm/<job name>.sh),
 * runs `sbatch --parsable` on it (sbatch from PATH) and prints the job
 * id on stdout.  Returns 0, 2 on a usage error (one line names the
 * option, the value and the reason), 1 when the script cannot be written
 * or sbatch fails (its own message is passed through).
 */
int cmd_slurm(int argc, char **argv);

#endif
