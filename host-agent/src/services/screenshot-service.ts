import type * as grpc from '@grpc/grpc-js';
import { ScreenshotServiceService, type ScreenshotServiceServer } from '@devplein/proto/screenshot';
import { unimplementedUnary } from './unimplemented.ts';

const capability = 'screenshots (Chromium)';
const pending = (method: keyof typeof ScreenshotServiceService) => ({ path: ScreenshotServiceService[method].path, capability });

/** ScreenshotService: captures of student sites. Every RPC answers UNIMPLEMENTED for now. */
export class ScreenshotServiceImpl {
  addToServer(server: grpc.Server): void {
    const handlers: ScreenshotServiceServer = {
      capture: unimplementedUnary(pending('capture')),
    };
    server.addService(ScreenshotServiceService, handlers);
  }
}
