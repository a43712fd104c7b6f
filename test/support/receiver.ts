export * from '../../sandbox/webhook-receiver.ts';
