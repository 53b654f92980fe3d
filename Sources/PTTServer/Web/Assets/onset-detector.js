// The onset of each sound that follows a silence, for both worklets (the microphone's and the player's): with chirps
// through a fake microphone, the two give the mouth-to-ear delay from page to page (Tests/Browser/mouth_to_ear.py).

/** Below this a render quantum is silence. */
export const QUIET = 0.004;
const ONSET = 0.1;

/** The time of each sound after 0.15 s of silence (the first render quantum above ONSET within 30 ms of the
 * silence's end: a chirp's ramp may span two quanta), and its zero crossings from 10 to 30 ms after, which tell
 * one chirp's tone from another's. Both worklets import it. */
export class OnsetDetector {
  constructor(report) {
    this.report = report;
    this.quietFor = 0;
    this.armedFor = -1; // samples since a silence ended, or -1
    this.measured = -1; // samples of the sound whose crossings are being counted, or -1
    this.crossings = 0;
    this.sign = 0;
    this.at = 0;
  }

  observe(samples) {
    if (this.measured >= 0) this.count(samples);
    let peak = 0;
    for (let i = 0; i < samples.length; i++) peak = Math.max(peak, Math.abs(samples[i]));
    if (peak < QUIET) {
      this.quietFor += samples.length;
      this.armedFor = -1;
      return;
    }
    if (this.quietFor >= 0.15 * sampleRate) this.armedFor = 0;
    this.quietFor = 0;
    if (this.armedFor < 0) return;
    if (peak > ONSET) {
      this.at = Date.now();
      this.armedFor = -1;
      this.measured = 0;
      this.crossings = 0;
      this.sign = 0;
      this.count(samples);
    } else {
      this.armedFor += samples.length;
      if (this.armedFor > 0.03 * sampleRate) this.armedFor = -1;
    }
  }

  /** Counts the crossings from 10 to 30 ms after the onset (past the ramp and what audio processing does to it). */
  count(samples) {
    for (let i = 0; i < samples.length && this.measured < 0.03 * sampleRate; i++, this.measured++) {
      if (this.measured < 0.01 * sampleRate) continue;
      const sign = samples[i] > 0.001 ? 1 : samples[i] < -0.001 ? -1 : 0;
      if (sign !== 0 && this.sign !== 0 && sign !== this.sign) this.crossings++;
      if (sign !== 0) this.sign = sign;
    }
    if (this.measured >= 0.03 * sampleRate) {
      this.report(this.at, this.crossings);
      this.measured = -1;
    }
  }
}
