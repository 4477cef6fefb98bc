import { useEffect, useState } from 'react';
import { FeedbackForm } from '../components/FeedbackForm';

// Feedback is the form of the /feedback-form page; a link may name the
// error it reports, as /feedback-form?errorType=500.
export default function Feedback() {
  const [errorType, setErrorType] = useState('');
  useEffect(() => {
    setErrorType(new URLSearchParams(location.search).get('errorType') ?? '');
  }, []);
  return <FeedbackForm errorType={errorType} ownAddress />;
}
