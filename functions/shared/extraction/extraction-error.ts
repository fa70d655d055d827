/** A problem with the file itself; the message is shown to the user as the document's `error`. */
export class DocumentExtractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DocumentExtractionError";
  }
}
