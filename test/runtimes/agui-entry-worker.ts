// workerd entry for the AG-UI interop test.
import { app } from "./agui-app.js";

export default { fetch: (request: Request): Promise<Response> => app(request) };
