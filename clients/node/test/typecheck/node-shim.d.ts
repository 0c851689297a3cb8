// The few Node.js typings index.d.ts uses, for a tsc without @types/node (Debian's node-typescript
// has none, and the npm registry is out of reach). With @types/node installed, leave this file out.
declare module 'node:events' {
  export class EventEmitter {
    on(event: string | symbol, listener: (...args: any[]) => void): this;
    once(event: string | symbol, listener: (...args: any[]) => void): this;
    off(event: string | symbol, listener: (...args: any[]) => void): this;
    emit(event: string | symbol, ...args: any[]): boolean;
  }
}

declare module 'node:child_process' {
  export class ChildProcess {
    readonly pid?: number;
    kill(signal?: NodeJS.Signals | number): boolean;
  }
}

declare namespace NodeJS {
  interface ReadableStream {}
  interface WritableStream {}
  interface ProcessEnv { [key: string]: string | undefined }
  type Signals = 'SIGTERM' | 'SIGINT' | 'SIGKILL' | 'SIGHUP' | string;
}

declare class Buffer extends Uint8Array {}
