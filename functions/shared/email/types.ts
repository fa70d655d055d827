/** The e-mail port: one message to one address (sign-in links of protected hosted pages). */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface EmailSender {
  send(message: EmailMessage): Promise<void>;
}
