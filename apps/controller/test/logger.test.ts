import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { componentLogger, createLogger } from '../src/index.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe('JSON logs', () => {
  it("writes upstream's keys: message, capitalised level, ISO time, logger", () => {
    const { lines, stream } = capture();
    const root = createLogger({ level: 'info', outputPaths: ['stdout'], commit: 'abc', stream });
    componentLogger(root, 'provisioner').info({ pods: 3 }, 'found provisionable pod(s)');
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? {};
    expect(line).toMatchObject({
      level: 'INFO',
      logger: 'controller.provisioner',
      message: 'found provisionable pod(s)',
      commit: 'abc',
      pods: 3,
    });
    expect(new Date(line['time'] as string).toISOString()).toBe(line['time']);
  });

  it('drops lines below the configured level', () => {
    const { lines, stream } = capture();
    const root = createLogger({ level: 'error', outputPaths: ['stdout'], commit: 'abc', stream });
    root.info('hidden');
    root.debug('hidden');
    root.error('shown');
    expect(lines.map((l) => [l['level'], l['message']])).toEqual([['ERROR', 'shown']]);
  });
});
