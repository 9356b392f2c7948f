/** Why a run was stopped from outside; the reason decides the text the client reads. */
export class CallTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the app did not finish within ${ms} ms`);
  }
}
export class CallCancelled extends Error {
  constructor() {
    super('the call was cancelled');
  }
}
