import { readdirSync, readFileSync } from 'node:fs';

/**
 * This process's CPU time so far, split between its main thread (the loop's JavaScript) and its
 * other threads (V8 compiling hot functions, and helping the garbage collector), in ms. Read from
 * Linux's /proc/self/task, in clock ticks of 10 ms (USER_HZ is 100 wherever Node runs on Linux):
 * undefined elsewhere. Node 22 has no per-thread CPU clock of its own (process.threadCpuUsage came
 * in Node 23.9).
 */
export function threadCpuMs(): { main: number; other: number } | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  let main = 0;
  let other = 0;
  for (const task of tasks) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    } catch {
      // A thread that ended between the listing and the read.
      continue;
    }
    // After "pid (name) ": state is the 1st field, utime the 12th and stime the 13th (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (task === String(process.pid)) main += ticks;
    else other += ticks;
  }
  return { main: main * TICK_MS, other: other * TICK_MS };
}

const TICK_MS = 10;
