import type * as grpc from '@grpc/grpc-js';
import { ScreenshotServiceService, type ScreenshotServiceServer } from '@devplein/proto/screenshot';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config.ts';
import { unimplementedUnary } from './unimplemented.ts';

const capability = 'screenshots (Chromium)';
const pending = (method: keyof typeof ScreenshotServiceService) => ({ path: ScreenshotServiceService[method].path, capability });

/** ScreenshotService: captures of student sites. Every RPC answers UNIMPLEMENTED for now. */
export class ScreenshotServiceImpl {
  constructor(readonly options: { config: AgentConfig; logger: Logger }) {}

  async close(): Promise<void> {}

  addToServer(server: grpc.Server): void {
    const handlers: ScreenshotServiceServer = {
      capture: unimplementedUnary(pending('capture')),
    };
    server.addService(ScreenshotServiceService, handlers);
  }
}
