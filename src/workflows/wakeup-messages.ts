import { defineSignal } from '@temporalio/workflow';
import type { WakeupCommand, WakeupReply } from '../common/wakeup';

/** A turn's ScheduleWakeup call, to its session (answered by {@link wakeupReplySignal}). */
export const wakeupCommandSignal = defineSignal<[WakeupCommand]>('wakeupCommand');
/** The session's answer to the turn that asked. */
export const wakeupReplySignal = defineSignal<[WakeupReply]>('wakeupReply');
