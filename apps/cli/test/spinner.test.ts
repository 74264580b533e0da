import { describe, expect, it } from 'vitest';
import { startProgress } from '../src/spinner.js';

describe('startProgress', () => {
  it('writes nothing when stderr is not a terminal (pipes, CI, JSON output)', async () => {
    let written = '';
    const stream = {
      isTTY: false,
      write: (text: string) => ((written += text), true),
    } as unknown as NodeJS.WriteStream;
    const progress = startProgress('working', stream);
    progress.update('still working');
    progress.stop();
    expect(written).toBe('');
  });
});
